package e2e

import (
	"fmt"
	"image/png"
	"os"
	"testing"
)

type tabsState struct {
	Tabs struct {
		Active  struct{ Role, URL string }
		Tracked []struct{ Role, URL string }
	}
}

// TestNavigationsKeepTabsBounded: 50 URL navigations reuse the session's
// dapp tab; 50 more, each asking for a new tab, leave at most 10 tabs
// (the default --max-tabs), the newest ones, with the wallet's home page.
func TestNavigationsKeepTabsBounded(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	srv := dappServer(t)
	var st tabsState
	for i := 0; i < 50; i++ {
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": fmt.Sprintf("%s/?n=%d", srv.URL, i)}))
	}
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &st)
	if len(st.Tabs.Tracked) != 2 || st.Tabs.Active.URL != srv.URL+"/?n=49" {
		t.Fatalf("after 50 navigations: %+v", st.Tabs)
	}
	for i := 0; i < 50; i++ {
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": fmt.Sprintf("%s/?new=%d", srv.URL, i), "newTab": true}))
	}
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &st)
	tr := st.Tabs.Tracked
	if len(tr) != 10 || tr[0].Role != "extension" || tr[9].URL != srv.URL+"/?new=49" || tr[1].URL != srv.URL+"/?new=41" {
		t.Fatalf("after 50 navigations in new tabs, want home and the 9 newest: %+v", tr)
	}
	if st.Tabs.Active.URL != srv.URL+"/?new=49" {
		t.Fatalf("active %+v", st.Tabs.Active)
	}
	wantCode(t, h.Call("mm_navigate", map[string]any{"screen": "home", "newTab": true}), "MM_INVALID_INPUT")
}

// screenshotSize takes a screenshot and returns its PNG's size.
func screenshotSize(t *testing.T, h *Host, name string) (int, int) {
	t.Helper()
	var shot struct{ Path string }
	must(t, h.Call("mm_screenshot", map[string]any{"name": name})).Decode(t, &shot)
	f, err := os.Open(shot.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Width, cfg.Height
}

// TestViewport: a screenshot of the wallet and of a dapp is 1280x720 by
// default, and --viewport sets another size.
func TestViewport(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	if w, ht := screenshotSize(t, h, "home"); w != 1280 || ht != 720 {
		t.Fatalf("wallet screenshot %dx%d, want 1280x720", w, ht)
	}
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": dappServer(t).URL, "newTab": true}))
	if w, ht := screenshotSize(t, h, "dapp"); w != 1280 || ht != 720 {
		t.Fatalf("dapp screenshot %dx%d, want 1280x720", w, ht)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
	h.Close()

	h, _ = walletHost(t, "--viewport", "1024x600")
	launch(t, h, map[string]any{"stateMode": "default"})
	if w, ht := screenshotSize(t, h, "home"); w != 1024 || ht != 600 {
		t.Fatalf("screenshot %dx%d with --viewport 1024x600", w, ht)
	}
}
