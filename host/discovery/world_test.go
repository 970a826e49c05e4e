package discovery

import (
	"testing"
	"time"
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
