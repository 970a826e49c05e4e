package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

const testPassword = "test-password"

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *sdk.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v, want *sdk.Error %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("got %s (%s), want %s", e.Code, e.Message, code)
	}
}

func tctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitTab polls Tabs until one tracked tab satisfies ok.
func waitTab(t *testing.T, s *Session, what string, ok func(observation.Tab) bool) observation.Tab {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, tb := range s.Tabs().Tracked {
			if ok(tb) {
				return tb
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no tab %s among %+v", what, s.Tabs().Tracked)
	return observation.Tab{}
}

// dappServer serves a page that opens popups, and the popup itself.
func dappServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Dapp</title><h1>Test dapp</h1>
<button data-testid="open-popup" onclick="window.open('/popup', 'pop', 'popup,width=400,height=300')">popup</button>
<button data-testid="open-blank" onclick="window.open('about:blank', 'blank')">blank</button>
<div style="height:3000px">tall</div>`)
	})
	mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Popup</title><p>popup</p>`)
	})
	srv := httptest.NewServer(mux)
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
	wantCode(t, err, sdk.CodeInvalidInput)
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

	res, err := s.Navigate(ctx, ScreenSettings, "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Navigated || !strings.HasSuffix(res.CurrentURL, "home.html#settings") {
		t.Fatalf("navigate settings: %+v", res)
	}
	if st, _ = s.State(ctx); st.CurrentScreen != "settings" || !st.IsUnlocked {
		t.Fatalf("settings state: %+v", st)
	}
	if _, err := s.Navigate(ctx, ScreenHome, ""); err != nil {
		t.Fatal(err)
	}
	if st, _ = s.State(ctx); st.CurrentScreen != "home" {
		t.Fatalf("home state after settings: %+v", st)
	}

	_, err = s.Navigate(ctx, ScreenURL, "")
	wantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.Navigate(ctx, "wallet", "")
	wantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.Navigate(ctx, ScreenURL, "http://127.0.0.1:1/")
	wantCode(t, err, sdk.CodeNavigationFailed)
	if n := len(s.Tabs().Tracked); n != 1 {
		t.Fatalf("a failed navigation left a tab behind: %+v", s.Tabs().Tracked)
	}

	srv := dappServer(t)
	var changes atomic.Int32
	s.OnActiveChange(func() { changes.Add(1) })
	res, err = s.Navigate(ctx, ScreenURL, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if res.CurrentURL != srv.URL+"/" || changes.Load() != 1 {
		t.Fatalf("navigate url: %+v, %d active changes", res, changes.Load())
	}
	tabs := s.Tabs()
	if tabs.Active.Role != RoleDapp || len(tabs.Tracked) != 2 {
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

func TestPopupsAndTabs(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	srv := dappServer(t)
	if _, err := s.Navigate(ctx, ScreenURL, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	dapp := s.ActivePage()
	if err := s.clickTestID(ctx, dapp, "open-popup"); err != nil {
		t.Fatal(err)
	}
	// window.open targets start with an empty URL and are re-classified
	// when they navigate.
	waitTab(t, s, "dapp popup", func(tb observation.Tab) bool {
		return tb.Role == RoleDapp && tb.URL == srv.URL+"/popup"
	})
	if err := s.clickTestID(ctx, dapp, "open-blank"); err != nil {
		t.Fatal(err)
	}
	waitTab(t, s, "about:blank popup", func(tb observation.Tab) bool {
		return tb.Role == RoleOther && tb.URL == "about:blank"
	})
	if s.Tabs().Active.URL != srv.URL+"/" {
		t.Fatalf("a popup the agent did not ask for became active: %+v", s.Tabs().Active)
	}

	sw, err := s.SwitchTab(ctx, "", srv.URL+"/popup")
	if err != nil {
		t.Fatal(err)
	}
	if !sw.Switched || sw.ActiveTab.URL != srv.URL+"/popup" || s.ActivePage() == dapp {
		t.Fatalf("switch to popup: %+v", sw)
	}
	if sw, err = s.SwitchTab(ctx, RoleExtension, ""); err != nil || sw.ActiveTab.Role != RoleExtension {
		t.Fatalf("switch to extension: %+v %v", sw, err)
	}
	_, err = s.SwitchTab(ctx, RoleNotification, "")
	wantCode(t, err, sdk.CodeTabNotFound)
	_, err = s.SwitchTab(ctx, "", "")
	wantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.SwitchTab(ctx, "window", "")
	wantCode(t, err, sdk.CodeInvalidInput)

	// Closing the active dapp falls back to the home page.
	if _, err := s.SwitchTab(ctx, RoleDapp, srv.URL+"/popup"); err != nil {
		t.Fatal(err)
	}
	cl, err := s.CloseTab(ctx, RoleDapp, srv.URL+"/popup")
	if err != nil {
		t.Fatal(err)
	}
	if !cl.Closed || cl.ClosedURL != srv.URL+"/popup" {
		t.Fatalf("close: %+v", cl)
	}
	if a := s.Tabs().Active; a.Role != RoleExtension || !strings.Contains(a.URL, "/home.html") {
		t.Fatalf("active after closing the active tab: %+v", a)
	}
	if cl, err = s.CloseTab(ctx, RoleOther, ""); err != nil || cl.ClosedURL != "about:blank" {
		t.Fatalf("close other: %+v %v", cl, err)
	}
	_, err = s.CloseTab(ctx, RoleExtension, "")
	wantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.CloseTab(ctx, RoleNotification, "")
	wantCode(t, err, sdk.CodeTabNotFound)
	if n := len(s.Tabs().Tracked); n != 2 {
		t.Fatalf("want home and dapp left, got %+v", s.Tabs().Tracked)
	}
}

func TestNotificationPopup(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	if err := s.Unlock(ctx, testPassword); err != nil {
		t.Fatal(err)
	}
	_, err := s.WaitForNotification(ctx, 300*time.Millisecond)
	wantCode(t, err, sdk.CodeNotificationTimeout)

	var changes atomic.Int32
	s.OnActiveChange(func() { changes.Add(1) })
	home := s.ActivePage()
	// The page asks the service worker, which opens the popup window.
	if err := s.clickTestID(ctx, home, "open-notification"); err != nil {
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
	if a := s.Tabs().Active; a.Role != RoleNotification || s.ActivePage() == home || changes.Load() != 1 {
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
	if err := s.clickTestID(ctx, s.ActivePage(), "close-self"); err != nil {
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
		if tb.Role == RoleNotification {
			t.Fatalf("closed popup still tracked: %+v", s.Tabs().Tracked)
		}
	}

	// Navigate notification opens it in the active extension tab.
	nres, err := s.Navigate(ctx, ScreenNotification, "")
	if err != nil || nres.CurrentURL != want {
		t.Fatalf("navigate notification: %+v %v", nres, err)
	}
}

// TestIsolatedWorldSurvivesScuttling: the test extension scuttles
// HTMLInputElement in its main world, as LavaMoat does; Eval still sees it.
func TestIsolatedWorldSurvivesScuttling(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	if _, err := s.ActivePage().Context(ctx).Eval(`() => typeof HTMLInputElement`); err == nil {
		t.Fatal("main-world access to HTMLInputElement should throw on the scuttled page")
	}
	var kind string
	if err := s.Eval(ctx, `typeof HTMLInputElement`, &kind); err != nil || kind != "function" {
		t.Fatalf("isolated world sees %q, %v", kind, err)
	}
}
