package browser

import (
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// urls lists the tracked tabs' URLs, oldest first.
func urls(tabs []observation.Tab) []string {
	var out []string
	for _, tb := range tabs {
		out = append(out, tb.URL)
	}
	return out
}

// TestURLTabReuseAndCap: URL navigations reuse the session's dapp tab,
// leave a dapp's popups alone, and opening tabs past MaxTabs closes the
// oldest non-extension tab first, then extension pages, never home.
func TestURLTabReuseAndCap(t *testing.T) {
	s := launchTest(t, func(o *Options) { o.MaxTabs = 3 })
	ctx := tctx(t)
	srv := dappServer(t)
	for i, path := range []string{"/?a", "/?b", "/?c"} {
		res, err := s.Navigate(ctx, ScreenURL, srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		if res.CurrentURL != srv.URL+path || len(s.Tabs().Tracked) != 2 {
			t.Fatalf("navigation %d: %+v, tabs %v", i+1, res, urls(s.Tabs().Tracked))
		}
	}
	// A dapp's own popup is not the tab a navigation reuses.
	if err := ClickTestID(ctx, s.ActivePage(), "open-popup"); err != nil {
		t.Fatal(err)
	}
	waitTab(t, s, "dapp popup", func(tb observation.Tab) bool { return tb.URL == srv.URL+"/popup" })
	if _, err := s.SwitchTab(ctx, "", srv.URL+"/popup"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Navigate(ctx, ScreenURL, srv.URL+"/?d"); err != nil {
		t.Fatal(err)
	}
	if got := urls(s.Tabs().Tracked); len(got) != 3 || got[1] != srv.URL+"/?d" || got[2] != srv.URL+"/popup" {
		t.Fatalf("after navigating from the popup: %v", got)
	}
	// Three tabs held: a new one closes the oldest dapp tab (not the
	// popup, which is younger; not home).
	if _, err := s.OpenTab(ctx, srv.URL+"/?e"); err != nil {
		t.Fatal(err)
	}
	got := urls(s.Tabs().Tracked)
	if len(got) != 3 || !strings.Contains(got[0], "/home.html") || got[1] != srv.URL+"/popup" || got[2] != srv.URL+"/?e" {
		t.Fatalf("after a new tab past the cap: %v", got)
	}
	if a := s.Tabs().Active; a.URL != srv.URL+"/?e" {
		t.Fatalf("active %+v", a)
	}
	// An extension page in a tab is closed only after every non-extension
	// tab, even when it is older.
	settings := s.homeURL() + s.pages.SettingsFragment
	if _, err := s.OpenTab(ctx, settings); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenTab(ctx, srv.URL+"/?f"); err != nil {
		t.Fatal(err)
	}
	got = urls(s.Tabs().Tracked)
	if len(got) != 3 || got[1] != settings || got[2] != srv.URL+"/?f" {
		t.Fatalf("the extension page went before a dapp tab: %v", got)
	}
	// With only extension pages to close, the oldest one goes.
	if _, err := s.OpenTab(ctx, settings); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenTab(ctx, srv.URL+"/?g"); err != nil {
		t.Fatal(err)
	}
	got = urls(s.Tabs().Tracked)
	if len(got) != 3 || !strings.Contains(got[0], "/home.html") || got[1] != settings || got[2] != srv.URL+"/?g" {
		t.Fatalf("with only extension pages left to close: %v", got)
	}
	// The next URL navigation reuses the tab the last one opened.
	if _, err := s.Navigate(ctx, ScreenURL, srv.URL+"/?h"); err != nil {
		t.Fatal(err)
	}
	if got = urls(s.Tabs().Tracked); len(got) != 3 || got[1] != settings || got[2] != srv.URL+"/?h" {
		t.Fatalf("reuse after a new tab: %v", got)
	}
}
