package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrChromeNotFound is returned by FindChrome when no Chrome or Chromium
// binary is installed in a known place.
var ErrChromeNotFound = errors.New("no Chrome or Chromium found: install chromium or set --chrome / CHROME_PATH")

// chromeCandidates are absolute paths tried in order after $CHROME_PATH.
// The real Debian binary comes before its /usr/bin wrapper script so that
// the process we kill is Chrome itself.
var chromeCandidates = []string{
	"/usr/lib/chromium/chromium",
	"/usr/lib/chromium-browser/chromium-browser",
	"/usr/bin/chromium",
	"/usr/bin/chromium-browser",
	"/snap/bin/chromium",
	"/opt/google/chrome-for-testing/chrome",
	"/opt/google/chrome/chrome",
	"/usr/bin/google-chrome",
	"/usr/bin/google-chrome-stable",
	"/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
	"/Applications/Chromium.app/Contents/MacOS/Chromium",
	"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
}

// chromeNames are looked up on $PATH after the candidates.
var chromeNames = []string{"chromium", "chromium-browser", "chrome", "google-chrome-for-testing", "google-chrome", "google-chrome-stable"}

// FindChrome returns the browser binary to launch: explicit when not empty
// (it must exist), else $CHROME_PATH, else the first of the usual install
// locations and $PATH names. It never downloads a browser.
func FindChrome(explicit string) (string, error) {
	if explicit == "" {
		explicit = os.Getenv("CHROME_PATH")
	}
	if explicit != "" {
		if !isExecutable(explicit) {
			return "", fmt.Errorf("chrome binary %q is not an executable file", explicit)
		}
		return explicit, nil
	}
	for _, p := range chromeCandidates {
		if isExecutable(p) {
			return p, nil
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		// Chrome for Testing as installed by @puppeteer/browsers.
		matches, _ := filepath.Glob(filepath.Join(home, ".cache", "puppeteer", "chrome", "linux-*", "chrome-linux64", "chrome"))
		for _, p := range matches {
			if isExecutable(p) {
				return p, nil
			}
		}
	}
	for _, name := range chromeNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrChromeNotFound
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
