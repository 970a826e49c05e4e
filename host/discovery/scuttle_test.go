package discovery

import (
	"strings"
	"testing"
	"time"
)

// scuttle makes main-world globals throw on access the way LavaMoat's
// scuttling does on real MetaMask test builds.
const scuttle = `<script>
for (const name of ['HTMLInputElement', 'HTMLTextAreaElement', 'HTMLElement', 'Element', 'Node',
    'ShadowRoot', 'Event', 'InputEvent', 'MouseEvent', 'getComputedStyle', 'requestAnimationFrame', 'JSON']) {
  Object.defineProperty(globalThis, name, {
    configurable: false,
    get() { throw new Error('LavaMoat - property "' + name + '" of globalThis is inaccessible under scuttling mode'); },
    set() { throw new Error('LavaMoat - property "' + name + '" of globalThis is inaccessible under scuttling mode'); },
  });
}
</script>`

func TestScuttledMainWorld(t *testing.T) {
	p := openHTML(t, scuttle+`
<h1>Unlock</h1>
<input type="password" data-testid="unlock-password" aria-label="Password">
<button data-testid="unlock-submit" onclick="document.body.setAttribute('data-unlocked', document.querySelector('input').value.length)">Unlock</button>`)

	// The scuttling is real: main-world code touching the globals throws.
	_, err := p.Timeout(5 * time.Second).Eval(`() => HTMLInputElement.name`)
	if err == nil || !strings.Contains(err.Error(), "scuttling mode") {
		t.Fatalf("page is not scuttled: %v", err)
	}

	ids, err := TestIDs(ctxT(t, 5*time.Second), p, 0)
	if err != nil || len(ids) != 2 {
		t.Fatalf("testids %v, %v", ids, err)
	}
	_, nodes, refs, err := Describe(ctxT(t, 5*time.Second), p, 0)
	if err != nil || len(nodes) != 3 {
		t.Fatalf("observe %v, %v", nodes, err)
	}
	if _, err := WaitFor(ctxT(t, 5*time.Second), p, nil, Target{TestID: "unlock-password"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Type(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: refNamed(t, refs, "textbox", "Password", 0)}, "abc"); err != nil {
		t.Fatal(err)
	}
	// A snapshot replaces the page's refs.
	snapNodes, snapRefs, err := Snapshot(ctxT(t, 5*time.Second), p, "")
	if err != nil || len(snapNodes) != 3 {
		t.Fatalf("snapshot %v, %v", snapNodes, err)
	}
	if _, err := Type(ctxT(t, 5*time.Second), p, snapRefs, Target{A11yRef: refNamed(t, snapRefs, "textbox", "Password", 0)}, "correct horse"); err != nil {
		t.Fatal(err)
	}
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "unlock-submit"}); err != nil {
		t.Fatal(err)
	}
	if got := attr(t, p, "body", "data-unlocked"); got != "13" {
		t.Errorf("unlocked with a %s-char password, want 13", got)
	}
}

// The isolated world dies with a navigation; the next call recreates it.
func TestNavigationRecreatesWorld(t *testing.T) {
	p := openHTML(t, `<button data-testid="one">One</button>`)
	if ids, err := TestIDs(ctxT(t, 5*time.Second), p, 0); err != nil || len(ids) != 1 || ids[0].TestID != "one" {
		t.Fatalf("before: %v %v", ids, err)
	}
	_, _, refs, err := Describe(ctxT(t, 5*time.Second), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	url := serve(`<!doctype html><button data-testid="two">Two</button>`)
	if err := p.Timeout(5 * time.Second).Navigate(url); err != nil {
		t.Fatal(err)
	}
	if err := p.Timeout(5 * time.Second).WaitLoad(); err != nil {
		t.Fatal(err)
	}
	ids, err := TestIDs(ctxT(t, 5*time.Second), p, 0)
	if err != nil || len(ids) != 1 || ids[0].TestID != "two" {
		t.Fatalf("after: %v %v", ids, err)
	}
	_, err = click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: "e1"})
	wantCode(t, err, "MM_TARGET_NOT_FOUND", "take a fresh snapshot")
}

// A confirm button that closes its popup window: the click succeeds and
// says the page closed.
func TestClickClosesPage(t *testing.T) {
	popup := serve(`<!doctype html><button data-testid="confirm" onclick="window.close()">Confirm</button><button data-testid="stay">Stay</button>`)
	p := openHTML(t, `<button data-testid="open" onclick="window.open('`+popup+`', 'pop', 'popup,width=400,height=300')">Open</button>`)
	wait := p.WaitOpen()
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "open"}); err != nil {
		t.Fatal(err)
	}
	q, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	if err := q.Timeout(5 * time.Second).WaitLoad(); err != nil {
		t.Fatal(err)
	}
	res, err := click(ctxT(t, 5*time.Second), q, nil, Target{TestID: "stay"})
	if err != nil || res.PageClosedAfterClick {
		t.Fatalf("a click that keeps the page open: %+v, %v", res, err)
	}
	res, err = click(ctxT(t, 5*time.Second), q, nil, Target{TestID: "confirm"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Clicked || !res.PageClosedAfterClick {
		t.Fatalf("result %+v, want pageClosedAfterClick", res)
	}
}
