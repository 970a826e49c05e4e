package discovery

import (
	"testing"
	"time"
)

// The page's version is the same for the state's probe, a snapshot's walk
// and PageVersion while the DOM holds still, changes with it, and is ""
// where it cannot follow the page (a frame).
func TestPageVersionAgreesAcrossReads(t *testing.T) {
	p := openHTML(t, `<button id="b">One</button>`)
	ctx := ctxT(t, 10*time.Second)
	var probe struct{ Version string }
	if err := Eval(ctx, p, ProbeExpr(map[string]string{"b": "#b"}), EvalOptions{Idempotent: true}, &probe); err != nil {
		t.Fatal(err)
	}
	_, _, at, err := SnapshotAt(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	now, err := PageVersion(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if probe.Version == "" || probe.Version != at.Version || now != at.Version {
		t.Fatalf("versions of an unchanged page differ: probe %q, walk %q, now %q", probe.Version, at.Version, now)
	}
	if err := Eval(ctx, p, `document.getElementById('b').textContent = 'Two'`, EvalOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if after, err := PageVersion(ctx, p); err != nil || after == now {
		t.Fatalf("version after a change %q (err %v), before %q", after, err, now)
	}

	framed := openHTML(t, `<button>One</button><iframe srcdoc="<p>in</p>"></iframe>`)
	if v, err := PageVersion(ctx, framed); err != nil || v != "" {
		t.Fatalf("version of a page with a frame %q (err %v), want none", v, err)
	}
}
