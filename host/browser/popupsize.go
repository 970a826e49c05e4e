package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
)

// fitPopup sizes the window of notification page id to the Pages'
// PopupSize when it has another size: headless Chrome opens the wallet's
// popup window at the browser's window size (1280x720) whatever the
// wallet asked, so the popup laid out, and was captured, at that size. A
// window that cannot be resized is logged, not fatal. It reports whether
// it resized the window.
func (s *Chrome) fitPopup(ctx context.Context, id proto.TargetTargetID) bool {
	want := s.pages.PopupSize
	if want.Width <= 0 || want.Height <= 0 {
		return false
	}
	b := s.browser.Context(ctx)
	win, err := proto.BrowserGetWindowForTarget{TargetID: id}.Call(b)
	if err != nil || win.Bounds == nil {
		s.log.Debug("popup size: window bounds", "error", err)
		return false
	}
	if w, h := win.Bounds.Width, win.Bounds.Height; w != nil && h != nil && *w == want.Width && *h == want.Height {
		return false
	}
	w, h := want.Width, want.Height
	if err := (proto.BrowserSetWindowBounds{WindowID: win.WindowID, Bounds: &proto.BrowserBounds{Width: &w, Height: &h}}).Call(b); err != nil {
		s.log.Debug("popup size: resize window", "error", err)
		return false
	}
	return true
}

// popupResizeBound bounds the wait for a resized popup's page to lay out
// at its new width.
const popupResizeBound = time.Second

// waitPopupWidth waits (within popupResizeBound) until page lays out at
// the popup's width: the window's resize reaches the page a frame or two
// later, and what follows (a screenshot, a layout read) must see it.
func (s *Chrome) waitPopupWidth(ctx context.Context, page *rod.Page) {
	ctx, cancel := context.WithTimeout(ctx, popupResizeBound)
	defer cancel()
	expr := fmt.Sprintf(`new Promise(r => { const f = () => innerWidth <= %d ? r(true) : requestAnimationFrame(f); f(); })`, s.pages.PopupSize.Width)
	var ok bool
	if err := discovery.Eval(ctx, page, expr, discovery.EvalOptions{Idempotent: true}, &ok); err != nil {
		s.log.Debug("popup size: the page kept its width", "error", err)
	}
}
