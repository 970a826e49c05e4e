package browser

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Options configures Launch.
type Options struct {
	// ChromePath is the Chrome or Chromium binary. Empty means $CHROME_PATH,
	// then the usual install locations (see FindChrome). Nothing is ever
	// downloaded.
	ChromePath string

	// Headless forces --headless=new. When false, Chrome runs headed if
	// $DISPLAY is set and headless otherwise.
	Headless bool

	// CDPURL attaches to an already running Chrome (a ws:// or http://
	// DevTools address) instead of launching one. Close then only drops the
	// connection; it never closes the user's browser.
	CDPURL string

	// ExtensionPath is the unpacked extension directory (a build's
	// dist/chrome). It is loaded with --load-extension. When attaching, it
	// is only used to compute the extension id.
	ExtensionPath string

	// UserDataDir is Chrome's profile directory. Empty means a fresh
	// directory under os.TempDir, created by Launch and removed by Close. A
	// directory given here is kept.
	UserDataDir string

	// ArtifactsDir is where Screenshot writes: <ArtifactsDir>/screenshots.
	// Empty means <os.TempDir>/mmcp-artifacts.
	ArtifactsDir string

	// SlowMo delays each rod input action (useful to watch a headed run).
	SlowMo time.Duration

	// Profile describes the wallet's screens and landmarks. Nil means
	// MetaMask.
	Profile *Profile

	// StateSnapshot names screens and reads the wallet's state instead of
	// the profile (a StateSnapshot plugin). Nil means the profile.
	StateSnapshot sdk.StateSnapshotter

	// Proxy sends Chrome's traffic through a proxy (the session's mock
	// server). Nil means none. Not applied when attaching (CDPURL).
	Proxy *Proxy

	// Log receives debug logs. Nil means no logging. Secrets never reach it.
	Log hclog.Logger
}

// Proxy is the proxy Chrome is launched with.
type Proxy struct {
	// Server is --proxy-server, e.g. "http://127.0.0.1:40123".
	Server string
	// Bypass is --proxy-bypass-list: the hosts Chrome reaches directly.
	Bypass string
	// SPKI is --ignore-certificate-errors-spki-list: the base64 SHA-256
	// SPKI hashes of the certificates Chrome accepts without a trusted
	// root (the proxy's CA). Never a blanket ignore.
	SPKI string
}
