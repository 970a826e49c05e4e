package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
)

// fitPopup sizes the window of notification page id to the profile's
// PopupSize when it has another size: headless Chrome opens the wallet's
// popup window at the browser's window size (1280x720) whatever the
// wallet asked, so the popup laid out, and was captured, at that size. A
// window that cannot be resized is logged, not fatal.
func (s *Session) fitPopup(ctx context.Context, id proto.TargetTargetID) {
	want := s.profile.PopupSize
	if want.Width <= 0 || want.Height <= 0 {
		return
	}
	b := s.browser.Context(ctx)
	win, err := proto.BrowserGetWindowForTarget{TargetID: id}.Call(b)
	if err != nil || win.Bounds == nil {
		s.log.Debug("popup size: window bounds", "error", err)
		return
	}
	if w, h := win.Bounds.Width, win.Bounds.Height; w != nil && h != nil && *w == want.Width && *h == want.Height {
		return
	}
	w, h := want.Width, want.Height
	if err := (proto.BrowserSetWindowBounds{WindowID: win.WindowID, Bounds: &proto.BrowserBounds{Width: &w, Height: &h}}).Call(b); err != nil {
		s.log.Debug("popup size: resize window", "error", err)
	}
}
