package wallet

import (
	"errors"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestNavigateClosesModalLeftOpen: mm_navigate to a wallet screen while
// the account menu stays open over every screen closes the menu through
// its close button and says so (closedOverlay); a modal without a close
// control answers MM_TARGET_COVERED naming it.
func TestNavigateClosesModalLeftOpen(t *testing.T) {
	s, ctx := unlockedTest(t)
	if err := browser.ClickTestID(ctx, s.ActivePage(), "open-account-menu"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Navigate(ctx, browser.ScreenSettings, "")
	if err != nil || !res.Navigated || res.ClosedOverlay != "MetaMask's account menu" {
		t.Fatalf("navigate over the account menu: %+v %v", res, err)
	}
	res, err = s.Navigate(ctx, browser.ScreenHome, "")
	if err != nil || res.ClosedOverlay != "" {
		t.Fatalf("navigate home after the menu closed: %+v %v", res, err)
	}

	if err := browser.ClickTestID(ctx, s.ActivePage(), "open-sticky-modal"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Navigate(ctx, browser.ScreenSettings, "")
	testutil.WantCode(t, err, sdk.CodeTargetCovered)
	var se *sdk.Error
	errors.As(err, &se)
	if !strings.Contains(se.Message, "a MetaMask modal") || !strings.Contains(se.Message, "settings screen") {
		t.Fatalf("message %q", se.Message)
	}
}
