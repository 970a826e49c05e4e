package browser

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// TestNotificationTimeoutNamesTheCause: a timeout says whether nothing was
// logged (no request reached the wallet) or Chrome refused its popup's
// window bounds, read from the extension's service worker console.
func TestNotificationTimeoutNamesTheCause(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	if err := s.Unlock(ctx, testPassword); err != nil {
		t.Fatal(err)
	}
	_, err := s.WaitForNotification(ctx, 300*time.Millisecond)
	wantCode(t, err, sdk.CodeNotificationTimeout)
	if !strings.Contains(err.Error(), "no console error was seen") {
		t.Fatalf("quiet wallet: %v", err)
	}

	if err := s.clickTestID(ctx, s.ActivePage(), "open-offscreen-notification"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err = s.WaitForNotification(ctx, 500*time.Millisecond)
		wantCode(t, err, sdk.CodeNotificationTimeout)
		if strings.Contains(err.Error(), "refused the window") || time.Now().After(deadline) {
			break
		}
	}
	var se *sdk.Error
	if !errors.As(err, &se) || !strings.Contains(se.Message, "Invalid value for bounds") || !strings.Contains(se.Message, "half inside the screen") {
		t.Fatalf("refused popup: %v", err)
	}
	if logged, _ := se.Details["consoleErrors"].([]string); len(logged) == 0 {
		t.Fatalf("details %v", se.Details)
	}
}
