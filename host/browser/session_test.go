package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

func tctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitTab polls Tabs until one tracked tab satisfies ok.
func waitTab(t *testing.T, s *Chrome, what string, ok func(observation.Tab) bool) observation.Tab {
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

func TestPopupsAndTabs(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	srv := dappServer(t)
	if _, err := s.Navigate(ctx, ScreenURL, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	dapp := s.ActivePage()
	if err := ClickTestID(ctx, dapp, "open-popup"); err != nil {
		t.Fatal(err)
	}
	// window.open targets start with an empty URL and are re-classified
	// when they navigate.
	waitTab(t, s, "dapp popup", func(tb observation.Tab) bool {
		return tb.Role == RoleDapp && tb.URL == srv.URL+"/popup"
	})
	if err := ClickTestID(ctx, dapp, "open-blank"); err != nil {
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
	testutil.WantCode(t, err, sdk.CodeTabNotFound)
	_, err = s.SwitchTab(ctx, "", "")
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.SwitchTab(ctx, "window", "")
	testutil.WantCode(t, err, sdk.CodeInvalidInput)

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
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.CloseTab(ctx, RoleNotification, "")
	testutil.WantCode(t, err, sdk.CodeTabNotFound)
	if n := len(s.Tabs().Tracked); n != 2 {
		t.Fatalf("want home and dapp left, got %+v", s.Tabs().Tracked)
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
