package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/settings"
)

// Viewport is the size of a page's viewport in CSS pixels (WxH as a
// flag.Value).
type Viewport = settings.Viewport

// viewportSettle bounds the wait for the page to see the resized window.
const viewportSettle = 3 * time.Second

// fitViewport sizes the window so that its pages' viewport is
// Options.Viewport. The window also holds the browser's own bars (headless
// Chrome draws them too), so the viewport is measured on the home page and
// the window grown or shrunk by the difference; it returns once the page
// has seen the new size. A window manager that refuses the size is logged,
// not fatal.
func (s *Chrome) fitViewport(ctx context.Context) {
	home, ok := s.tabs.home()
	if !ok || home.Page == nil {
		return
	}
	want := s.opts.Viewport
	var got Viewport
	if err := discovery.Eval(ctx, home.Page, `({width: innerWidth, height: innerHeight})`, discovery.EvalOptions{Idempotent: true}, &got); err != nil {
		s.log.Debug("viewport: measure", "error", err)
		return
	}
	if got == want {
		return
	}
	win, err := proto.BrowserGetWindowForTarget{TargetID: home.ID}.Call(s.browser.Context(ctx))
	if err != nil || win.Bounds == nil || win.Bounds.Width == nil || win.Bounds.Height == nil {
		s.log.Debug("viewport: window bounds", "error", err)
		return
	}
	w, h := *win.Bounds.Width+want.Width-got.Width, *win.Bounds.Height+want.Height-got.Height
	if err := (proto.BrowserSetWindowBounds{WindowID: win.WindowID, Bounds: &proto.BrowserBounds{Width: &w, Height: &h}}).Call(s.browser.Context(ctx)); err != nil {
		s.log.Debug("viewport: resize window", "error", err)
		return
	}
	// The page learns its new size with a resize event.
	wait := fmt.Sprintf(`new Promise((resolve) => {
  const ok = () => innerWidth === %d && innerHeight === %d;
  if (ok()) return resolve(true);
  const timer = setTimeout(() => resolve(false), %d);
  addEventListener('resize', function f() {
    if (ok()) { clearTimeout(timer); removeEventListener('resize', f); resolve(true); }
  });
})`, want.Width, want.Height, viewportSettle.Milliseconds())
	var done bool
	if err := discovery.Eval(ctx, home.Page, wait, discovery.EvalOptions{Idempotent: true}, &done); err != nil || !done {
		s.log.Warn("the page viewport did not take the asked size", "want", want.String(), "error", err)
	}
}
