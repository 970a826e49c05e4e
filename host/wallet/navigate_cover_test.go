package wallet

import (
	"errors"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestNavigateSeesModalLeftOpen: mm_navigate to a wallet screen while the
// account menu stays open over every screen answers MM_TARGET_COVERED
// naming the menu and its close button, not ok; once the menu is closed
// with that button the same navigation answers ok.
func TestNavigateSeesModalLeftOpen(t *testing.T) {
	s, ctx := unlockedTest(t)
	if err := browser.ClickTestID(ctx, s.ActivePage(), "open-account-menu"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Navigate(ctx, browser.ScreenSettings, "")
	testutil.WantCode(t, err, sdk.CodeTargetCovered)
	var se *sdk.Error
	errors.As(err, &se)
	if !strings.Contains(se.Message, "MetaMask's account menu") || !strings.Contains(se.Message, "settings screen") {
		t.Fatalf("message %q", se.Message)
	}
	sel, _ := se.Details["closeSelector"].(string)
	if sel == "" {
		t.Fatalf("no close control in %v", se.Details)
	}
	var closed bool
	if err := discovery.Eval(ctx, s.ActivePage(), `(() => { const b = document.querySelector(`+discovery.JSArg(sel)+`); if (!b) return false; b.click(); return true; })()`, discovery.EvalOptions{}, &closed); err != nil || !closed {
		t.Fatalf("close control %q: %v %v", sel, closed, err)
	}
	res, err := s.Navigate(ctx, browser.ScreenSettings, "")
	if err != nil || !res.Navigated {
		t.Fatalf("navigate after closing: %+v %v", res, err)
	}
}
