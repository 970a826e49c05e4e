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
// another one is switched on the same chrome://extensions visit that
// reloads the extension (triggerReload).

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

// extensionsPageWait bounds a visit to chrome://extensions.
const extensionsPageWait = 5 * time.Second

// onExtensionsPage evaluates expr (a promise) on a chrome://extensions
// page, where chrome.developerPrivate is, opened in the background for it
// and closed after; an exception of the evaluation is an error.
func (s *Chrome) onExtensionsPage(ctx context.Context, expr string) error {
	tgt, err := proto.TargetCreateTarget{URL: "chrome://extensions/", Background: true}.Call(s.browser.Context(ctx))
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_ = s.closeTarget(cctx, tgt.TargetID)
		cancel()
	}()
	page, err := s.browser.PageFromTarget(tgt.TargetID)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, extensionsPageWait)
	defer cancel()
	_ = page.Context(cctx).WaitLoad()
	r, err := proto.RuntimeEvaluate{Expression: expr, AwaitPromise: true, ReturnByValue: true}.Call(page.Context(cctx))
	switch {
	case err != nil:
		return err
	case r.ExceptionDetails != nil:
		return fmt.Errorf("%s", exceptionText(r.ExceptionDetails))
	}
	return nil
}

// exceptionText is an evaluation's exception: its description when there
// is one (the error's message), else its text.
func exceptionText(d *proto.RuntimeExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}
