package wallet

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// dappServer serves a page of a dapp.
func dappServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Dapp</title><h1>Test dapp</h1>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStateUnlockAndNavigate(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)

	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentScreen != "unlock" || st.IsUnlocked || !st.IsLoaded || st.ExtensionID != s.ExtensionID() {
		t.Fatalf("fresh wallet state %+v, want a loaded, locked unlock screen", st)
	}
	// The wallet's app state knows its account while locked.
	if st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, "0x5CfE73b6021E818B776b421B1c4Db2474086a7e1") {
		t.Fatalf("locked wallet shows account %v", st.AccountAddress)
	}

	// A refused password answers as soon as the unlock form shows its
	// alert, well before the wait's bound.
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = s.Unlock(short, "wrong password")
	late := short.Err() != nil
	cancel()
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	if late {
		t.Fatal("the refused password was reported only at the wait's bound")
	}

	if err := s.Unlock(ctx, testPassword); err != nil {
		t.Fatalf("unlock: %v", err)
	}
	st, err = s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentScreen != "home" || !st.IsUnlocked {
		t.Fatalf("after unlock: %+v", st)
	}
	// From window.stateHooks: the page has no data-address or data-chain-id.
	if st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, "0x5CfE73b6021E818B776b421B1c4Db2474086a7e1") ||
		st.NetworkName == nil || *st.NetworkName != "Localhost 8545" ||
		st.ChainID == nil || *st.ChainID != 1337 ||
		st.Balance == nil || *st.Balance != "25 ETH" {
		t.Fatalf("wallet fields wrong: %+v", st)
	}
	if err := s.Unlock(ctx, testPassword); err != nil {
		t.Fatalf("unlock when already unlocked: %v", err)
	}

	res, err := s.Navigate(ctx, browser.ScreenSettings, "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Navigated || !strings.HasSuffix(res.CurrentURL, "home.html#settings") {
		t.Fatalf("navigate settings: %+v", res)
	}
	if st, _ = s.State(ctx); st.CurrentScreen != "settings" || !st.IsUnlocked {
		t.Fatalf("settings state: %+v", st)
	}
	if _, err := s.Navigate(ctx, browser.ScreenHome, ""); err != nil {
		t.Fatal(err)
	}
	if st, _ = s.State(ctx); st.CurrentScreen != "home" {
		t.Fatalf("home state after settings: %+v", st)
	}

	_, err = s.Navigate(ctx, browser.ScreenURL, "")
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.Navigate(ctx, "wallet", "")
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.Navigate(ctx, browser.ScreenURL, "http://127.0.0.1:1/")
	testutil.WantCode(t, err, sdk.CodeNavigationFailed)
	if n := len(s.Tabs().Tracked); n != 1 {
		t.Fatalf("a failed navigation left a tab behind: %+v", s.Tabs().Tracked)
	}

	srv := dappServer(t)
	var changes atomic.Int32
	s.OnActiveChange(func() { changes.Add(1) })
	res, err = s.Navigate(ctx, browser.ScreenURL, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if res.CurrentURL != srv.URL+"/" || changes.Load() != 1 {
		t.Fatalf("navigate url: %+v, %d active changes", res, changes.Load())
	}
	tabs := s.Tabs()
	if tabs.Active.Role != browser.RoleDapp || len(tabs.Tracked) != 2 {
		t.Fatalf("tabs after dapp navigation: %+v", tabs)
	}
	st, err = s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentScreen != "unknown" || !st.IsLoaded || st.CurrentURL != srv.URL+"/" || !st.IsUnlocked ||
		st.AccountAddress == nil {
		t.Fatalf("dapp state %+v: want unknown screen with the wallet's fields", st)
	}
}

func TestNotificationPopup(t *testing.T) {
	s, ctx := unlockedTest(t)
	_, err := s.WaitForNotification(ctx, 300*time.Millisecond)
	testutil.WantCode(t, err, sdk.CodeNotificationTimeout)

	var changes atomic.Int32
	s.OnActiveChange(func() { changes.Add(1) })
	home := s.ActivePage()
	// The page asks the service worker, which opens the popup window.
	if err := browser.ClickTestID(ctx, home, "open-notification"); err != nil {
		t.Fatal(err)
	}
	res, err := s.WaitForNotification(ctx, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := "chrome-extension://" + s.ExtensionID() + "/notification.html"
	if !res.Found || res.PageURL != want {
		t.Fatalf("notification: %+v, want %s", res, want)
	}
	if a := s.Tabs().Active; a.Role != browser.RoleNotification || s.ActivePage() == home || changes.Load() != 1 {
		t.Fatalf("active after notification: %+v (%d changes)", a, changes.Load())
	}
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentURL != want || st.CurrentScreen != "unknown" || !st.IsUnlocked {
		t.Fatalf("notification state: %+v", st)
	}

	// The popup closes itself (a confirm button): home becomes active.
	if err := browser.ClickTestID(ctx, s.ActivePage(), "close-self"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.ActivePage() != home && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.ActivePage() != home || changes.Load() != 2 {
		t.Fatalf("active did not fall back to home: %+v (%d changes)", s.Tabs(), changes.Load())
	}
	for _, tb := range s.Tabs().Tracked {
		if tb.Role == browser.RoleNotification {
			t.Fatalf("closed popup still tracked: %+v", s.Tabs().Tracked)
		}
	}

	// Navigate notification opens it in the active extension tab.
	nres, err := s.Navigate(ctx, browser.ScreenNotification, "")
	if err != nil || nres.CurrentURL != want {
		t.Fatalf("navigate notification: %+v %v", nres, err)
	}
}
