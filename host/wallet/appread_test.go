package wallet

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/browser"
)

// TestAppReadTakenForItsDocument: the app state a navigation to a wallet
// screen reads once the document loaded is what a state read of that
// document then takes, instead of reading it again; a state read of
// another document of the page, or of another page, reads its own. On a
// dapp page, the wallet's fields come from the home tab's read ahead.
func TestAppReadTakenForItsDocument(t *testing.T) {
	s, ctx := unlockedTest(t)
	want, err := s.State(ctx)
	if err != nil || want.Balance == nil {
		t.Fatalf("state: %+v, %v; want a balance", want, err)
	}

	var app *AppRead
	var loadedPage *rod.Page
	hook := browser.WithLoaded(ctx, func(p *rod.Page) {
		loadedPage = p
		app = s.StartAppRead(ctx, p)
	})
	if _, err := s.Navigate(hook, browser.ScreenURL, dappServer(t).URL+"/"); err != nil {
		t.Fatal(err)
	}
	if app != nil || loadedPage != nil {
		t.Fatal("a URL navigation read the wallet's app state ahead")
	}
	if _, err := s.Navigate(hook, browser.ScreenHome, ""); err != nil {
		t.Fatal(err)
	}
	if app == nil {
		t.Fatal("a navigation home read no app state ahead")
	}
	<-app.done
	if app.value == nil {
		t.Fatal("the app state read ahead is empty")
	}
	// Mark the read ahead: a state read that takes it shows the mark.
	var v map[string]any
	if err := json.Unmarshal(app.value, &v); err != nil {
		t.Fatal(err)
	}
	v["balance"] = "0x1"
	app.value, _ = json.Marshal(v)
	st, _, err := s.StateWith(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	if st.Balance == nil || *st.Balance == *want.Balance {
		t.Fatalf("balance %v: want the read ahead's, not %q read again", st.Balance, *want.Balance)
	}
	if st.CurrentScreen != "home" || !st.IsUnlocked || st.AccountAddress == nil || *st.AccountAddress != *want.AccountAddress {
		t.Fatalf("state with the read ahead: %+v; want the home of %v", st, *want.AccountAddress)
	}

	// A new document of the same page: the read ahead is not taken.
	if _, err := s.Navigate(ctx, browser.ScreenHome, ""); err != nil {
		t.Fatal(err)
	}
	if st, _, err = s.StateWith(ctx, app); err != nil || st.Balance == nil || *st.Balance != *want.Balance {
		t.Fatalf("state of a new document: balance %v, %v; want %q read from it", st.Balance, err, *want.Balance)
	}
	// Another page: not taken either.
	other := &AppRead{page: &rod.Page{}, done: app.done, origin: app.origin, value: app.value}
	if st, _, err = s.StateWith(ctx, other); err != nil || st.Balance == nil || *st.Balance != *want.Balance {
		t.Fatalf("state with another page's read: balance %v, %v; want %q", st.Balance, err, *want.Balance)
	}
	// A read that answered nothing is read again.
	empty := &AppRead{page: loadedPage, done: app.done}
	if st, _, err = s.StateWith(context.Background(), empty); err != nil || st.Balance == nil || *st.Balance != *want.Balance {
		t.Fatalf("state with an empty read ahead: balance %v, %v; want %q", st.Balance, err, *want.Balance)
	}

	// A dapp page: the wallet's fields are the home tab's read ahead.
	home, ok := s.HomeTab()
	if !ok || home.Page != loadedPage {
		t.Fatalf("home tab %+v: want the page navigated home", home)
	}
	homeRead := s.StartAppRead(ctx, home.Page)
	if _, err := s.Navigate(ctx, browser.ScreenURL, dappServer(t).URL+"/"); err != nil {
		t.Fatal(err)
	}
	<-homeRead.done
	homeRead.value = app.value // the marked balance
	if st, _, err = s.StateWith(ctx, homeRead); err != nil || st.CurrentScreen != "unknown" || st.Balance == nil || *st.Balance == *want.Balance {
		t.Fatalf("dapp state with the home tab's read ahead: %+v, %v; want the read ahead's balance", st, err)
	}
}
