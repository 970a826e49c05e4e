package discovery

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/observation"
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

// TestRecordTakesTheSnapshotWalk: a whole-page snapshot keeps its walk for
// the next record of the unchanged page, which equals a fresh walk; a
// record that starts while the snapshot walks waits for it; a change after
// the snapshot makes the record walk again.
func TestRecordTakesTheSnapshotWalk(t *testing.T) {
	p := openHTML(t, `<h1>Title</h1><button data-testid="go">Go</button><input type="checkbox" aria-label="Agree">`)
	_, k, lastWalks := walksOf(t, p)
	ctx := ctxT(t, 10*time.Second)
	// A record that starts while a snapshot walks waits for that walk.
	walking := &inflight{done: make(chan struct{})}
	lastWalks.Lock()
	lastWalks.walking[k] = walking
	lastWalks.Unlock()
	type observed struct {
		json string
		err  error
	}
	rec := make(chan observed, 1)
	go func() {
		ids, nodes, err := Observe(ctx, p, 0, nil, "")
		b, _ := json.Marshal([]any{ids, nodes})
		rec <- observed{string(b), err}
	}()
	select {
	case <-rec:
		t.Fatal("the record walked while a snapshot walk was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	lastWalks.Lock()
	delete(lastWalks.walking, k)
	clear(lastWalks.m)
	lastWalks.Unlock()
	if _, _, err := Snapshot(ctx, p, ""); err != nil {
		t.Fatal(err)
	}
	lastWalks.Lock()
	kept, ok := lastWalks.m[k]
	lastWalks.Unlock()
	if !ok {
		t.Fatal("the snapshot's walk is not kept for the next record")
	}
	if same, _ := observeOnce(t, p, kept.version); !same {
		t.Fatal("the snapshot's walk is not kept with the page's version: the record walks again")
	}
	close(walking.done)
	got := <-rec
	if got.err != nil {
		t.Fatal(got.err)
	}
	// The record from the snapshot's walk equals a fresh walk.
	lastWalks.Lock()
	clear(lastWalks.m)
	lastWalks.Unlock()
	ids, nodes, err := Observe(ctx, p, 0, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := json.Marshal([]any{ids, nodes})
	if got.json != string(fresh) {
		t.Fatalf("record from the snapshot's walk differs from a fresh walk:\n%s\n%s", got.json, fresh)
	}
	// A change after the snapshot is seen by the record.
	if _, _, err := Snapshot(ctx, p, ""); err != nil {
		t.Fatal(err)
	}
	p.MustEval(`() => document.body.append(Object.assign(document.createElement('button'), {textContent: 'Later'}))`)
	_, nodes, err = Observe(ctx, p, 0, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	later := shows(nodes, "Later")
	if !later {
		t.Fatalf("the record reused the snapshot's walk of a page that changed since: %+v", nodes)
	}
}

// TestRecordTakesASnapshotWalkInFlight: a record that waited for a
// snapshot's walk takes it, even after the page changed, when take
// accepts the page's URL and load state at that walk; otherwise (take
// refuses, or none) it walks the changed page again.
func TestRecordTakesASnapshotWalkInFlight(t *testing.T) {
	p := openHTML(t, `<h1>Title</h1><button>Go</button>`)
	main, k, lastWalks := walksOf(t, p)
	ctx := ctxT(t, 10*time.Second)
	href := p.MustEval(`() => location.href`).String()
	for _, tc := range []struct {
		name   string
		accept bool
		take   bool // a take function at all
	}{{"accepted", true, true}, {"refused", false, true}, {"no take", false, false}} {
		// The snapshot's walk, in flight until done closes.
		var r struct {
			Version string `json:"version"`
			collected
		}
		if err := evalIn(p.Context(ctx), main, jsObserve, idem, &r, map[string]any{"ids": DefaultTestIDLimit, "nodes": true}, ""); err != nil {
			t.Fatal(err)
		}
		walking := &inflight{done: make(chan struct{}), c: r.collected, ok: true}
		lastWalks.Lock()
		lastWalks.walking[k] = walking
		lastWalks.Unlock()
		var seen At
		var take func(At) bool
		if tc.take {
			take = func(at At) bool { seen = at; return tc.accept }
		}
		type observed struct {
			nodes []observation.A11yNode
			err   error
		}
		rec := make(chan observed, 1)
		go func() {
			_, nodes, _, err := ObserveTaking(ctx, p, 0, nil, "", take)
			rec <- observed{nodes, err}
		}()
		name := "Later " + tc.name
		p.MustEval(`(n) => document.body.append(Object.assign(document.createElement('button'), {textContent: n}))`, name)
		close(walking.done)
		got := <-rec
		lastWalks.Lock()
		delete(lastWalks.walking, k)
		lastWalks.Unlock()
		if got.err != nil {
			t.Fatal(got.err)
		}
		later := shows(got.nodes, name)
		if later == tc.accept {
			t.Fatalf("%s: the record shows the change made after the snapshot's walk: %v, want %v", tc.name, later, !tc.accept)
		}
		if tc.take && (seen.URL != href || seen.ReadyState != "complete") {
			t.Fatalf("%s: take got %+v, want the page's URL %q, complete", tc.name, seen, href)
		}
	}
}

// walksOf is p's main frame, its world's key and the walk cache it is in.
func walksOf(t *testing.T, p *rodPage) (proto.PageFrameID, worldKey, *walkCache) {
	t.Helper()
	main, err := mainFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	return main, worldKey{p.SessionID, main}, &cacheOf(p).walks
}

// TestRecordTakesAFinishedSnapshotWalk: the latest whole-page snapshot's
// walk stays takeable once done: a record that starts after it ended (its
// state read was slower than the snapshot) takes it when take accepts the
// walk's start (one made after the record's call answered), even after the
// page changed; a walk made before that is never taken, and the record
// walks the changed page again.
func TestRecordTakesAFinishedSnapshotWalk(t *testing.T) {
	p := openHTML(t, `<h1>Title</h1><button>Go</button>`)
	ctx := ctxT(t, 10*time.Second)
	for i, tc := range []struct {
		name   string
		accept bool
	}{{"walked after the call", true}, {"walked before the call", false}} {
		answered := time.Now()
		if _, _, err := Snapshot(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Later %d", i)
		p.MustEval(`(n) => document.body.append(Object.assign(document.createElement('button'), {textContent: n}))`, name)
		if !tc.accept {
			answered = time.Now() // the snapshot's walk is older than the call
		}
		_, nodes, _, err := ObserveTaking(ctx, p, 0, nil, "", func(at At) bool { return at.Walked.After(answered) })
		if err != nil {
			t.Fatal(err)
		}
		later := shows(nodes, name)
		if later == tc.accept {
			t.Fatalf("%s: the record shows the change made after the snapshot's walk: %v, want %v", tc.name, later, !tc.accept)
		}
	}
}

// TestRecordTakesThePreviousRecordWalk: a record that names no ref takes
// the record walk before it (a click's, made after the screenshot that
// followed the click answered) when that walk started after the record's
// call answered, even when the page changed after it, as a snapshot's
// walk is taken; so it does when that record found the page unchanged
// since the walk it kept (the page was as walked then). A walk older than
// the call is not taken, nor is any by a record that names a ref (its
// node must carry that ref).
func TestRecordTakesThePreviousRecordWalk(t *testing.T) {
	p := openHTML(t, `<h1>Title</h1><button>Go</button>`)
	ctx := ctxT(t, 10*time.Second)
	_, refs, err := Snapshot(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name      string
		unchanged bool // the record before finds the page as it kept it
		older     bool // the record before walked before the call answered
		ref       string
		accept    bool
	}{
		{"found unchanged after the call", true, false, "", true},
		{"walked after the call", false, false, "", true},
		{"walked before the call", false, true, "", false},
		{"a record naming a ref", false, false, "e1", false},
	} {
		if !tc.unchanged {
			p.MustEval(`(n) => document.body.append(Object.assign(document.createElement('p'), {textContent: n}))`, tc.name)
		}
		answered := time.Now()
		if _, _, _, err := ObserveTaking(ctx, p, 0, nil, "", nil); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Later %d", i)
		p.MustEval(`(n) => document.body.append(Object.assign(document.createElement('button'), {textContent: n}))`, name)
		if tc.older {
			answered = time.Now()
		}
		_, nodes, _, err := ObserveTaking(ctx, p, 0, refs, tc.ref, func(at At) bool { return at.Walked.After(answered) })
		if err != nil {
			t.Fatal(err)
		}
		later := shows(nodes, name)
		if later == tc.accept {
			t.Fatalf("%s: the record shows the change made after the record walk before it: %v, want %v", tc.name, later, !tc.accept)
		}
	}
}

// TestObserveSaysWhereThePageWas: a record's walk says where the page was
// when it walked: its URL and load state, and its version as PageVersion
// reads it, whether it walked or found the page unchanged (a hash change
// the version sees), and no version on a page with a frame, whose changes
// the version cannot follow. A record pairs a state read with the walk by
// this alone.
func TestObserveSaysWhereThePageWas(t *testing.T) {
	ctx := ctxT(t, 10*time.Second)
	p := openHTML(t, `<h1>Title</h1><button>Go</button>`)
	check := func(when string) At {
		t.Helper()
		_, _, at, err := ObserveTaking(ctx, p, 0, nil, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		now, err := PageAt(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if at.URL != now.URL || at.ReadyState != now.ReadyState || at.Version != now.Version {
			t.Fatalf("%s: the walk says %+v, the page is at %+v", when, at, now)
		}
		return at
	}
	first := check("first walk")
	if first.Version == "" || first.ReadyState != "complete" {
		t.Fatalf("first walk: no version or not loaded: %+v", first)
	}
	if again := check("unchanged page"); again.Version != first.Version {
		t.Fatalf("an unchanged page got another version: %q, was %q", again.Version, first.Version)
	}
	p.MustEval(`() => { location.hash = 'x'; }`)
	if moved := check("after a hash change"); moved.URL == first.URL || moved.Version == first.Version {
		t.Fatalf("after a hash change the walk says %+v, as before (%+v)", moved, first)
	}
	p.MustEval(`() => document.body.append(document.createElement('iframe'))`)
	if framed := check("with a frame"); framed.Version != "" {
		t.Fatalf("a page with a frame has version %q, want none", framed.Version)
	}
}

// TestRecordWalksOfOnePageTakeTurns: two step records of one page made at
// the same time (a click's and the screenshot's after it, both hurried by
// the next call) walk it once: the later finds the page as the earlier
// left it and takes that walk, where walking side by side made the page
// run both walks, one after the other, for the same nodes.
func TestRecordWalksOfOnePageTakeTurns(t *testing.T) {
	ctx := ctxT(t, 20*time.Second)
	var rows strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&rows, "<tr><td>Row %d</td><td><button>Open %d</button></td></tr>", i, i)
	}
	p := openHTML(t, "<table>"+rows.String()+"</table><p id='n'>0</p>")
	if _, _, err := Observe(ctx, p, 0, nil, ""); err != nil {
		t.Fatal(err)
	}
	main, err := mainFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	count := func(js string) (n int) {
		t.Helper()
		if err := evalIn(p.Context(ctx), main, script{text: js}, idem, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	count(`function() {
  const f = globalThis.__mmcpFns.collect;
  globalThis.__mmcpWalks = 0;
  globalThis.__mmcpFns.collect = (o) => { globalThis.__mmcpWalks++; return f(o); };
  return '0';
}`)
	p.MustEval(`() => { document.getElementById('n').textContent = '1'; }`)
	var wg sync.WaitGroup
	nodes := make([][]observation.A11yNode, 2)
	for i := range nodes {
		wg.Go(func() {
			_, n, err := Observe(ctx, p, 0, nil, "")
			if err != nil {
				t.Error(err)
			}
			nodes[i] = n
		})
	}
	wg.Wait()
	if walks := count(`function() { return String(globalThis.__mmcpWalks); }`); walks != 1 {
		t.Fatalf("two records of the unchanged page walked it %d times, want once", walks)
	}
	if len(nodes[0]) != len(nodes[1]) || len(nodes[0]) < 1500 {
		t.Fatalf("the two records differ or miss the page: %d and %d nodes", len(nodes[0]), len(nodes[1]))
	}
}

// shows says whether a node of nodes is named name.
func shows(nodes []observation.A11yNode, name string) bool {
	for _, n := range nodes {
		if n.Name == name {
			return true
		}
	}
	return false
}
