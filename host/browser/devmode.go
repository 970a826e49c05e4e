package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// Chrome keeps an unpacked extension loaded by --load-extension only while
// the profile is in developer mode: chrome.runtime.reload() without it
// disables the extension ("unsupportedDeveloperExtension") instead of
// loading it again. A profile the host creates starts in developer mode;
// another one is switched once, before its first reload.

// devModePrefs is the profile preference of the developer mode switch.
const devModePrefs = `{"extensions":{"ui":{"developer_mode":true}}}`

// writeDevModePrefs writes a fresh profile's Default/Preferences.
func writeDevModePrefs(userDir string) error {
	dir := filepath.Join(userDir, "Default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "Preferences"), []byte(devModePrefs), 0o600)
}

// ensureDevMode turns developer mode on through chrome://extensions (a
// tab opened and closed for it), once per session, for a profile the host
// did not create.
func (s *Chrome) ensureDevMode(ctx context.Context) error {
	if s.ownsDir {
		return nil
	}
	s.devModeOnce.Do(func() {
		tgt, err := proto.TargetCreateTarget{URL: "chrome://extensions/", Background: true}.Call(s.browser.Context(ctx))
		if err != nil {
			s.devModeErr = err
			return
		}
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			_ = s.closeTarget(cctx, tgt.TargetID)
			cancel()
		}()
		page, err := s.browser.PageFromTarget(tgt.TargetID)
		if err != nil {
			s.devModeErr = err
			return
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = page.Context(cctx).WaitLoad()
		r, err := proto.RuntimeEvaluate{Expression: `chrome.developerPrivate.updateProfileConfiguration({inDeveloperMode: true}).then(() => true)`,
			AwaitPromise: true, ReturnByValue: true}.Call(page.Context(cctx))
		switch {
		case err != nil:
			s.devModeErr = err
		case r.ExceptionDetails != nil:
			s.devModeErr = fmt.Errorf("%s", r.ExceptionDetails.Text)
		}
	})
	return s.devModeErr
}
