package discovery

import (
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// insertAbove inserts a button named Alpha above Beta, the way a wallet
// screen grows a banner above the button the agent saw.
const insertAbove = `
<div id="list"><button id="beta" onclick="this.setAttribute('data-hit','1')">Beta</button></div>
<button id="ins" onclick="const b = document.createElement('button'); b.id = 'alpha'; b.textContent = 'Alpha'; b.onclick = () => b.setAttribute('data-hit','1'); document.getElementById('list').prepend(b)">Insert</button>`

// A ref keeps naming its element after the page grows an element above it,
// and after a record observation, which never renumbers refs.
func TestRefSurvivesInsertAbove(t *testing.T) {
	for name, snap := range snapshotters {
		t.Run(name, func(t *testing.T) {
			p := openHTML(t, insertAbove)
			refs := snap(ctxT(t, 5*time.Second), t, p)
			beta := refNamed(t, refs, "button", "Beta", 0)
			ins := refNamed(t, refs, "button", "Insert", 0)
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ins}); err != nil {
				t.Fatal(err)
			}
			// The record of that click: the Insert button keeps its ref,
			// Beta's ref names no other node.
			_, nodes, err := Observe(ctxT(t, 5*time.Second), p, 0, refs, ins)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range nodes {
				if (n.Ref == ins) != (n.Name == "Insert") {
					t.Errorf("record node %+v: ref %s is Insert's", n, ins)
				}
			}
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: beta}); err != nil {
				t.Fatal(err)
			}
			if attr(t, p, "#beta", "data-hit") != "1" || attr(t, p, "#alpha", "data-hit") != "" {
				t.Fatal("the old ref of Beta clicked another element")
			}
			_, nodes, err = Observe(ctxT(t, 5*time.Second), p, 0, refs, beta)
			if err != nil {
				t.Fatal(err)
			}
			recordNamesRef(t, nodes, beta, "Beta")
		})
	}
}

// A ref whose element changed its name, or was replaced by a look-alike,
// is MM_TARGET_NOT_FOUND and never acts.
func TestRefOfChangedElementIsStale(t *testing.T) {
	for name, snap := range snapshotters {
		t.Run(name, func(t *testing.T) {
			p := openHTML(t, `
<button id="rename" onclick="this.textContent = 'Renamed'">Rename me</button>
<div id="box"><button id="twin" onclick="document.body.setAttribute('data-hit', this.id)">Twin</button></div>
<button id="swap" onclick="const n = document.createElement('button'); n.id = 'new-twin'; n.textContent = 'Twin'; n.onclick = () => document.body.setAttribute('data-hit', n.id); document.getElementById('box').replaceChildren(n)">Swap</button>`)
			refs := snap(ctxT(t, 5*time.Second), t, p)
			rename := refNamed(t, refs, "button", "Rename me", 0)
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: rename}); err != nil {
				t.Fatal(err)
			}
			_, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: rename})
			wantCode(t, err, sdk.CodeTargetNotFound, "changed", "Renamed", "mm_describe_screen")

			twin := refNamed(t, refs, "button", "Twin", 0)
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: refNamed(t, refs, "button", "Swap", 0)}); err != nil {
				t.Fatal(err)
			}
			_, err = click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: twin})
			wantCode(t, err, sdk.CodeTargetNotFound, "mm_describe_screen")
			if got := attr(t, p, "body", "data-hit"); got != "" {
				t.Fatalf("a stale ref clicked %s", got)
			}
		})
	}
}

// A step record's walk that runs after a snapshot replaced the refs its
// call used (a read-only call runs beside the record's observation) still
// names the element the call meant with the call's ref; the replaced refs
// still never act.
func TestRecordMarksARefReplacedMeanwhile(t *testing.T) {
	p := openHTML(t, insertAbove)
	refs := snapshotters["snapshot"](ctxT(t, 5*time.Second), t, p)
	ins := refNamed(t, refs, "button", "Insert", 0)
	if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ins}); err != nil {
		t.Fatal(err)
	}
	// The next call, a snapshot, replaces the refs before the record walks.
	newer := snapshotters["snapshot"](ctxT(t, 5*time.Second), t, p)
	_, nodes, err := Observe(ctxT(t, 5*time.Second), p, 0, refs, ins)
	if err != nil {
		t.Fatal(err)
	}
	if !recordNamesRef(t, nodes, ins, "Insert") {
		t.FailNow()
	}
	_, err = click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ins})
	wantCode(t, err, sdk.CodeTargetNotFound, "older snapshot")
	if _, err := click(ctxT(t, 5*time.Second), p, newer, Target{A11yRef: refNamed(t, newer, "button", "Insert", 0)}); err != nil {
		t.Fatal(err)
	}
}

// recordNamesRef reports, and fails t unless, exactly one of a record's
// nodes carries ref, and every node carrying it is named name.
func recordNamesRef(t *testing.T, nodes []observation.A11yNode, ref, name string) bool {
	t.Helper()
	ok := true
	named := 0
	for _, n := range nodes {
		if n.Ref == ref {
			named++
			if n.Name != name {
				t.Errorf("record names %s %q for ref %s, meant %s", n.Role, n.Name, ref, name)
				ok = false
			}
		}
	}
	if named != 1 {
		t.Errorf("%d record nodes carry ref %s, want 1: %+v", named, ref, nodes)
		ok = false
	}
	return ok
}
