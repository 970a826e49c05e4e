package wallet

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestNotificationTimeoutNamesTheCause: a timeout says whether nothing was
// logged (no request reached the wallet) or Chrome refused its popup's
// window bounds, read from the extension's service worker console.
func TestNotificationTimeoutNamesTheCause(t *testing.T) {
	s, ctx := unlockedTest(t)
	_, err := s.WaitForNotification(ctx, 300*time.Millisecond)
	testutil.WantCode(t, err, sdk.CodeNotificationTimeout)
	if !strings.Contains(err.Error(), "no console error was seen") {
		t.Fatalf("quiet wallet: %v", err)
	}

	if err := browser.ClickTestID(ctx, s.ActivePage(), "open-offscreen-notification"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err = s.WaitForNotification(ctx, 500*time.Millisecond)
		testutil.WantCode(t, err, sdk.CodeNotificationTimeout)
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

// TestNotificationTimeoutLeavesNoise: the wallet build's benign console
// lines and errors logged before the wait are not offered as the cause of
// a timeout, which says what it waited for and what the tabs were; an
// error logged while waiting is.
func TestNotificationTimeoutLeavesNoise(t *testing.T) {
	s, ctx := unlockedTest(t)
	home := s.ActivePage()
	for _, id := range []string{"log-error", "log-benign"} {
		if err := browser.ClickTestID(ctx, home, id); err != nil {
			t.Fatal(err)
		}
	}
	// The lines are in before the wait starts.
	deadline := time.Now().Add(5 * time.Second)
	for len(s.ConsoleErrors()) < 4 && time.Now().Before(deadline) {
		<-time.After(20 * time.Millisecond)
	}
	if n := len(s.ConsoleErrors()); n < 4 {
		t.Fatalf("%d console lines seen, want the 4 logged: %v", n, s.ConsoleErrors())
	}
	_, err := s.WaitForNotification(ctx, 300*time.Millisecond)
	testutil.WantCode(t, err, sdk.CodeNotificationTimeout)
	msg := err.Error()
	for _, noise := range []string{"requestAnimationFrame", "Receiving end", "early failure"} {
		if strings.Contains(msg, noise) {
			t.Errorf("timeout offers %q as the cause: %s", noise, msg)
		}
	}
	for _, want := range []string{"no console error was seen", "chrome-extension://" + s.ExtensionID() + "/notification.html", "the tabs were: extension chrome-extension://" + s.ExtensionID() + "/home.html"} {
		if !strings.Contains(msg, want) {
			t.Errorf("timeout lacks %q: %s", want, msg)
		}
	}

	if err := browser.ClickTestID(ctx, home, "log-errors-on"); err != nil {
		t.Fatal(err)
	}
	_, err = s.WaitForNotification(ctx, 500*time.Millisecond)
	testutil.WantCode(t, err, sdk.CodeNotificationTimeout)
	msg = err.Error()
	if !strings.Contains(msg, "real failure") || strings.Contains(msg, "requestAnimationFrame") || strings.Contains(msg, "early failure") {
		t.Errorf("timeout with an error while waiting: %s", msg)
	}
}
