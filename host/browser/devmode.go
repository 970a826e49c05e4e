package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-rod/rod"
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

// extensionsPageWait bounds opening chrome://extensions and one
// evaluation on it.
const extensionsPageWait = 5 * time.Second

// devPage is the chrome://extensions page the reloads evaluate on, opened
// in the background once and kept (hidden from the tabs): opening it costs
// a reload 300-500 ms.
type devPage struct {
	mu   sync.Mutex
	page *rod.Page
	id   proto.TargetTargetID
}

// extensionsPage is the kept chrome://extensions page, opened when there
// is none (or it went: closed, crashed).
func (s *Chrome) extensionsPage(ctx context.Context) (*rod.Page, error) {
	d := &s.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.page != nil {
		if s.targetAlive(ctx, d.id) {
			return d.page, nil
		}
		d.page = nil
	}
	tgt, err := proto.TargetCreateTarget{URL: "chrome://extensions/", Background: true}.Call(s.browser.Context(ctx))
	if err != nil {
		return nil, err
	}
	s.tabs.hide(tgt.TargetID)
	page, err := s.browser.PageFromTarget(tgt.TargetID)
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, extensionsPageWait)
		err = page.Context(cctx).WaitLoad()
		cancel()
	}
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_, _ = proto.TargetCloseTarget{TargetID: tgt.TargetID}.Call(s.browser.Context(cctx))
		cancel()
		return nil, err
	}
	d.page, d.id = page, tgt.TargetID
	return page, nil
}

// targetAlive reports whether target id still exists.
func (s *Chrome) targetAlive(ctx context.Context, id proto.TargetTargetID) bool {
	res, err := proto.TargetGetTargetInfo{TargetID: id}.Call(s.browser.Context(ctx))
	return err == nil && res.TargetInfo != nil
}

// onExtensionsPage evaluates expr (a promise) on the kept
// chrome://extensions page, where chrome.developerPrivate is (a page that
// fails the call, crashed or gone, is opened again once); an exception of
// the evaluation is an error.
func (s *Chrome) onExtensionsPage(ctx context.Context, expr string) error {
	for try := 0; ; try++ {
		page, err := s.extensionsPage(ctx)
		if err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(ctx, extensionsPageWait)
		r, err := proto.RuntimeEvaluate{Expression: expr, AwaitPromise: true, ReturnByValue: true}.Call(page.Context(cctx))
		cancel()
		switch {
		case err != nil && try == 0 && ctx.Err() == nil:
			s.dropExtensionsPage(page)
		case err != nil:
			return err
		case r.ExceptionDetails != nil:
			return fmt.Errorf("%s", exceptionText(r.ExceptionDetails))
		default:
			return nil
		}
	}
}

// dropExtensionsPage forgets page as the kept chrome://extensions page
// (closing it) so that the next reload opens another.
func (s *Chrome) dropExtensionsPage(page *rod.Page) {
	d := &s.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.page == page {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = proto.TargetCloseTarget{TargetID: d.id}.Call(s.browser.Context(cctx))
		cancel()
		d.page = nil
	}
}

// exceptionText is an evaluation's exception: its description when there
// is one (the error's message), else its text.
func exceptionText(d *proto.RuntimeExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}
