package discovery

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod"
)

// The scripts are installed once per world and called by name after; a
// new document gets them again, and a world that lost them is given them
// again instead of failing.
func TestScriptsInstalledPerWorld(t *testing.T) {
	p := openHTML(t, `<button data-testid="b">One</button>`)
	ctx := ctxT(t, 10*time.Second)
	snap := func(want string) {
		t.Helper()
		nodes, _, err := Snapshot(ctx, p, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != 1 || nodes[0].Name != want {
			t.Fatalf("snapshot %+v, want one node %q", nodes, want)
		}
	}
	snap("One")
	main, err := mainFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := world(p, main)
	if err != nil || !w.ready {
		t.Fatalf("world after the first call: %+v, %v; want the scripts installed", w, err)
	}
	snap("One")

	if err := Eval(ctx, p, "delete globalThis.__mmcpFns", EvalOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	snap("One")

	p.MustNavigate(serve(`<button data-testid="b">Two</button>`)).MustWaitLoad()
	snap("Two")
}

// Two browsers keep nothing in common: what one's pages cache (their
// worlds, the click binding, the last walk) lands in its own Cache, and a
// page forgotten in one leaves the other's as it was.
func TestCachesArePerBrowser(t *testing.T) {
	if browser == nil {
		t.Skip("chromium not installed at " + chromeBin)
	}
	ca, cb := NewCache(), NewCache()
	pa := openIn(t, browser.Context(WithCache(context.Background(), ca)), serve(`<button data-testid="b">A</button>`))
	pb := openIn(t, browser.Context(WithCache(context.Background(), cb)), serve(`<button data-testid="b">B</button>`))
	ctx := ctxT(t, 10*time.Second)
	sizes := func(c *Cache) [3]int {
		c.worlds.Lock()
		c.bindings.Lock()
		c.walks.Lock()
		defer c.worlds.Unlock()
		defer c.bindings.Unlock()
		defer c.walks.Unlock()
		return [3]int{len(c.worlds.m), len(c.bindings.m), len(c.walks.m)}
	}
	only := func(c *Cache, p *rod.Page) {
		t.Helper()
		c.worlds.Lock()
		defer c.worlds.Unlock()
		for k := range c.worlds.m {
			if k.session != p.SessionID {
				t.Fatalf("cache holds a world of page session %s, want only %s's", k.session, p.SessionID)
			}
		}
	}
	use := func(p *rod.Page) {
		t.Helper()
		if _, err := click(ctx, p, nil, Target{TestID: "b"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Observe(ctx, p, DefaultTestIDLimit, nil, ""); err != nil {
			t.Fatal(err)
		}
	}

	use(pa)
	if got := sizes(ca); got != [3]int{1, 1, 1} {
		t.Fatalf("browser A's cache after a click and a walk: %d worlds, %d bindings, %d walks; want 1 each", got[0], got[1], got[2])
	}
	if got := sizes(cb); got != [3]int{} {
		t.Fatalf("browser B's cache holds %v after A's calls, want nothing", got)
	}
	only(ca, pa)

	use(pb)
	if got := sizes(cb); got != [3]int{1, 1, 1} {
		t.Fatalf("browser B's cache after its calls: %v", got)
	}
	only(cb, pb)

	ForgetPage(pa)
	if got := sizes(ca); got[0] != 0 || got[1] != 0 {
		t.Fatalf("browser A's cache after ForgetPage: %v, want no world and no binding", got)
	}
	if got := sizes(cb); got != [3]int{1, 1, 1} {
		t.Fatalf("forgetting A's page changed B's cache: %v", got)
	}
}

// TestPreinstalledWorld: after Preinstall a new document starts with
// mmcp's world and its scripts, which the first call finds by the world's
// name instead of sending them; the document that was there before
// Preinstall gets them from its first call by name, as without it.
func TestPreinstalledWorld(t *testing.T) {
	p := openHTML(t, `<button data-testid="b">One</button>`)
	ctx := ctxT(t, 10*time.Second)
	main, err := mainFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	// has says whether the world already holds the scripts; an unnamed
	// script installs nothing
	has := func() bool {
		t.Helper()
		var ok bool
		if err := evalIn(p.Context(ctx), main, script{text: "function() { return JSON.stringify(!!globalThis.__mmcpFns); }"}, idem, &ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	testID := func(want string) {
		t.Helper()
		ids, err := TestIDs(ctx, p, 0)
		if err != nil || len(ids) != 1 || ids[0].Text != want {
			t.Fatalf("testids %+v, %v; want b %q", ids, err, want)
		}
	}
	if err := Preinstall(p); err != nil {
		t.Fatal(err)
	}
	if has() {
		t.Fatal("the document made before Preinstall holds the scripts before any call by name")
	}
	testID("One")

	p.MustNavigate(serve(`<button data-testid="b">Two</button>`)).MustWaitLoad()
	forgetWorld(p, main)
	if !has() {
		t.Fatal("a document made after Preinstall has no scripts in mmcp's world")
	}
	testID("Two")
}
