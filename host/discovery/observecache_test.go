package discovery

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-rod/rod"
)

// observeOnce runs the page side of a record's walk with the version known
// and reports whether the page skipped the walk, and the version it gave.
func observeOnce(t *testing.T, p *rod.Page, known string) (same bool, version string) {
	t.Helper()
	main, err := mainFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Same    bool   `json:"same"`
		Version string `json:"version"`
	}
	if err := evalIn(p.Context(ctxT(t, 10*time.Second)), main, jsObserve, idem, &r, map[string]any{"ids": 150, "nodes": true}, known); err != nil {
		t.Fatal(err)
	}
	return r.Same, r.Version
}

// TestObserveSkipsAnUnchangedPage: a record's walk is skipped while the page
// is unchanged, and runs again after any change the walk could see: a DOM
// mutation, a checkbox set by a script (no mutation), a page with an open
// shadow root (whose changes the page cannot see) every time.
func TestObserveSkipsAnUnchangedPage(t *testing.T) {
	p := openHTML(t, `<h1>Title</h1><label>Agree <input type="checkbox" id="c"></label><button id="b">Go</button>`)
	same, v := observeOnce(t, p, "")
	if same || v == "" {
		t.Fatalf("first walk: same %v, version %q", same, v)
	}
	if same, _ := observeOnce(t, p, v); !same {
		t.Fatal("an unchanged page was walked again")
	}
	changes := []struct{ name, js string }{
		{"a new element", `() => document.body.append(Object.assign(document.createElement('button'), {textContent: 'New'}))`},
		{"a text change", `() => { document.getElementById('b').firstChild.data = 'Went'; }`},
		{"a checkbox set by a script", `() => { document.getElementById('c').checked = true; }`},
	}
	for _, c := range changes {
		p.MustEval(c.js)
		same, nv := observeOnce(t, p, v)
		if same || nv == v {
			t.Fatalf("after %s: same %v, version %q (was %q)", c.name, same, nv, v)
		}
		v = nv
	}
	// Observe gives the same observation whether it walked or not.
	ctx := ctxT(t, 10*time.Second)
	ids1, nodes1, err := Observe(ctx, p, 0, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ids2, nodes2, err := Observe(ctx, p, 0, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal([]any{ids1, nodes1})
	b, _ := json.Marshal([]any{ids2, nodes2})
	if string(a) != string(b) {
		t.Fatalf("reused observation differs:\n%s\n%s", a, b)
	}
	var checked bool
	for _, n := range nodes2 {
		if n.Role == "checkbox" && n.Checked != nil {
			checked = *n.Checked
		}
	}
	if !checked {
		t.Fatalf("the checkbox set by a script is not checked in the observation: %s", b)
	}

	shadow := openHTML(t, `<div id="host"></div><script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button>In shadow</button>';</script>`)
	_, v = observeOnce(t, shadow, "")
	if same, _ := observeOnce(t, shadow, v); same {
		t.Fatal("a page with an open shadow root skipped its walk")
	}
}

// TestSnapshotAdoptsTheRecordWalk: a snapshot of a page unchanged since a
// record's walk answers that walk's nodes, and its refs are that walk's
// elements: a click by ref lands on the element the ref names. After a
// change the snapshot walks the page again.
func TestSnapshotAdoptsTheRecordWalk(t *testing.T) {
	p := openHTML(t, twoDeletes)
	ctx := ctxT(t, 20*time.Second)
	fresh, _, err := Snapshot(ctx, p, "") // no record walk yet: a walk
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Observe(ctx, p, 0, nil, ""); err != nil {
		t.Fatal(err)
	}
	// the page side adopts (it does not walk) for the version just kept
	main, _ := mainFrame(p)
	lastWalks.Lock()
	kept := lastWalks.m[worldKey{p.SessionID, main}].version
	lastWalks.Unlock()
	var r struct{ Same bool }
	if err := evalIn(p.Context(ctx), main, jsObserve, idem, &r, map[string]any{"nodes": true, "gen": describeGen.Add(1)}, kept, describeGen.Load()); err != nil || !r.Same {
		t.Fatalf("snapshot of an unchanged page did not adopt the record's walk (same %v, err %v)", r.Same, err)
	}
	nodes, refs, err := Snapshot(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fresh)
	b, _ := json.Marshal(nodes)
	if string(a) != string(b) {
		t.Fatalf("adopted snapshot differs from a walk:\n%s\n%s", b, a)
	}
	second := refNamed(t, refs, "button", "Delete", 1)
	if _, err := click(ctx, p, refs, Target{A11yRef: second}); err != nil {
		t.Fatal(err)
	}
	if attr(t, p, "#a", "data-hit") != "" || attr(t, p, "#b", "data-hit") != "1" {
		t.Fatal("a click by the adopted ref hit another element")
	}
	// the click changed the page: the next snapshot sees the change
	p.MustEval(`() => document.getElementById('b').remove()`)
	nodes, _, err = Snapshot(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(fresh)-1 {
		t.Fatalf("snapshot after a removal has %d nodes, want %d", len(nodes), len(fresh)-1)
	}
}
