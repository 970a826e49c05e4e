package wallet

import (
	"testing"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
)

// TestPopupScreenshotSize: the notification popup lays out and is captured
// at the popup's size (the profile's PopupSize, the window the wallet
// asks for), not at the main window's 1280 wide.
func TestPopupScreenshotSize(t *testing.T) {
	s, ctx := unlockedTest(t)
	if err := browser.ClickTestID(ctx, s.ActivePage(), "open-notification"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitForNotification(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var vp browser.Viewport
	if err := discovery.Eval(ctx, s.ActivePage(), `({width: innerWidth, height: innerHeight})`, discovery.EvalOptions{Idempotent: true}, &vp); err != nil {
		t.Fatal(err)
	}
	shot, err := s.Screenshot(ctx, browser.ScreenshotOptions{Name: "popup"})
	if err != nil {
		t.Fatal(err)
	}
	want := s.profile.PopupSize
	if shot.Width != want.Width || shot.Height > want.Height || shot.Height < want.Height-100 || shot.Width != vp.Width || shot.Height != vp.Height {
		t.Fatalf("popup screenshot %dx%d (viewport %v), want the popup's %v window", shot.Width, shot.Height, vp, want)
	}
}
