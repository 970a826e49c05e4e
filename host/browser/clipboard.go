package browser

import (
	"context"
	"net/url"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Clipboard actions.
const (
	ClipboardRead  = "read"
	ClipboardWrite = "write"
)

// ClipboardResult is mm_clipboard's result.
type ClipboardResult struct {
	Action  string  `json:"action"`
	Success bool    `json:"success"`
	Text    *string `json:"text,omitempty"`
}

// Clipboard writes text to, or reads text from, the browser clipboard
// through navigator.clipboard in the active page (the page is focused
// first, and its origin granted clipboard access). The text is never
// logged. Errors: MM_INVALID_INPUT (unknown action, write without text),
// MM_CLIPBOARD_FAILED.
func (s *Chrome) Clipboard(ctx context.Context, action, text string) (ClipboardResult, error) {
	switch action {
	case ClipboardWrite, ClipboardRead:
	default:
		return ClipboardResult{}, sdk.Errorf(sdk.CodeInvalidInput, "clipboard action must be %q or %q, got %q", ClipboardRead, ClipboardWrite, action)
	}
	page, err := s.activePage(ctx)
	if err != nil {
		return ClipboardResult{}, err
	}
	if err := s.focus(ctx, page); err != nil {
		return ClipboardResult{}, sdk.Errorf(sdk.CodeClipboardFailed, "focus the page: %w", err)
	}
	if ti, ok := s.tabs.get(page.TargetID); ok {
		if u, err := url.Parse(ti.URL); err == nil && u.Scheme != "" && u.Host != "" {
			s.grantClipboard(ctx, u.Scheme+"://"+u.Host)
		}
	}
	if action == ClipboardWrite {
		if err := discovery.Eval(ctx, page, `navigator.clipboard.writeText(`+discovery.JSArg(text)+`).then(() => true)`, discovery.EvalOptions{Gesture: true}, nil); err != nil {
			return ClipboardResult{}, sdk.Errorf(sdk.CodeClipboardFailed, "clipboard write failed: %w", err)
		}
		return ClipboardResult{Action: action, Success: true}, nil
	}
	var got string
	if err := discovery.Eval(ctx, page, `navigator.clipboard.readText()`, discovery.EvalOptions{Gesture: true, Idempotent: true}, &got); err != nil {
		return ClipboardResult{}, sdk.Errorf(sdk.CodeClipboardFailed, "clipboard read failed: %w", err)
	}
	return ClipboardResult{Action: action, Success: true, Text: &got}, nil
}

// grantClipboard grants clipboard access to origin once per session.
// Failure is logged only: the clipboard call itself will then report it.
func (s *Chrome) grantClipboard(ctx context.Context, origin string) {
	s.mu.Lock()
	done := s.granted[origin]
	s.mu.Unlock()
	if done {
		return
	}
	err := proto.BrowserGrantPermissions{
		Permissions: []proto.BrowserPermissionType{
			proto.BrowserPermissionTypeClipboardReadWrite,
			proto.BrowserPermissionTypeClipboardSanitizedWrite,
		},
		Origin: origin,
	}.Call(s.browser.Context(ctx))
	if err != nil {
		s.log.Debug("grant clipboard permission failed", "origin", origin, "error", err)
		return
	}
	s.mu.Lock()
	s.granted[origin] = true
	s.mu.Unlock()
}

// focus brings page to the front and makes it believe it has focus
// (navigator.clipboard refuses unfocused documents; headless windows are
// never focused otherwise).
func (s *Chrome) focus(ctx context.Context, page *rod.Page) error {
	if err := (proto.TargetActivateTarget{TargetID: page.TargetID}).Call(s.browser.Context(ctx)); err != nil {
		return err
	}
	s.mu.Lock()
	done := s.focusSet[page.TargetID]
	s.mu.Unlock()
	if done {
		return nil
	}
	if err := (proto.EmulationSetFocusEmulationEnabled{Enabled: true}).Call(page.Context(ctx)); err != nil {
		return err
	}
	s.mu.Lock()
	s.focusSet[page.TargetID] = true
	s.mu.Unlock()
	return nil
}
