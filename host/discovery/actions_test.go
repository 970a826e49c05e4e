package discovery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/sdk"
)

func wantCode(t *testing.T, err error, code string, contains ...string) *sdk.Error {
	t.Helper()
	var se *sdk.Error
	if !errors.As(err, &se) {
		t.Fatalf("want %s, got %v", code, err)
	}
	if se.Code != code {
		t.Fatalf("want %s, got %s: %s", code, se.Code, se.Message)
	}
	for _, c := range contains {
		if !strings.Contains(se.Message, c) {
			t.Errorf("message %q lacks %q", se.Message, c)
		}
	}
	return se
}

// snapshotters are the two ways of getting refs: Chrome's AX tree and the
// cheap description.
var snapshotters = map[string]func(context.Context, *testing.T, *rodPage) *RefMap{
	"snapshot": func(ctx context.Context, t *testing.T, p *rodPage) *RefMap {
		_, refs, err := Snapshot(ctx, p, "")
		if err != nil {
			t.Fatal(err)
		}
		return refs
	},
	"describe": func(ctx context.Context, t *testing.T, p *rodPage) *RefMap {
		_, _, refs, err := Describe(ctx, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		return refs
	},
}

func refNamed(t *testing.T, refs *RefMap, role, name string, nth int) string {
	t.Helper()
	for i := 1; i <= refs.Len(); i++ {
		ref := "e" + itoa(i)
		r, n, _ := refs.Describe(ref)
		if r == role && n == name {
			if nth == 0 {
				return ref
			}
			nth--
		}
	}
	t.Fatalf("no %s %q #%d in refs", role, name, nth)
	return ""
}

const twoDeletes = `
<ul>
 <li id="a">Alpha <button onclick="this.parentNode.setAttribute('data-hit','1')">Delete</button></li>
 <li id="b">Beta <button onclick="this.parentNode.setAttribute('data-hit','1')">Delete</button></li>
</ul>`

func TestClickSameNameByRef(t *testing.T) {
	for name, snap := range snapshotters {
		t.Run(name, func(t *testing.T) {
			p := openHTML(t, twoDeletes)
			refs := snap(ctxT(t, 5*time.Second), t, p)
			second := refNamed(t, refs, "button", "Delete", 1)
			res, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: second})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Clicked || res.Target != "ref:"+second {
				t.Errorf("result %+v", res)
			}
			if attr(t, p, "#a", "data-hit") != "" || attr(t, p, "#b", "data-hit") != "1" {
				t.Fatalf("the second Delete was not the one clicked")
			}
			first := refNamed(t, refs, "button", "Delete", 0)
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: first}); err != nil {
				t.Fatal(err)
			}
			if attr(t, p, "#a", "data-hit") != "1" {
				t.Fatalf("the first Delete was not clicked")
			}
		})
	}
}

func TestStaleRef(t *testing.T) {
	for name, snap := range snapshotters {
		t.Run(name, func(t *testing.T) {
			p := openHTML(t, `<button id="x" onclick="this.remove()">Remove me</button><button>Other</button>`)
			refs := snap(ctxT(t, 5*time.Second), t, p)
			ref := refNamed(t, refs, "button", "Remove me", 0)
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ref}); err != nil {
				t.Fatal(err)
			}
			// Let the removed node be collected too: both "detached" and
			// "no node with given id" must read as stale.
			_ = proto.HeapProfilerCollectGarbage{}.Call(p)
			start := time.Now()
			_, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ref})
			wantCode(t, err, sdk.CodeTargetNotFound, "take a fresh snapshot")
			if time.Since(start) > 2*time.Second {
				t.Errorf("stale ref took %v: it must fail at once", time.Since(start))
			}
			_, err = WaitFor(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ref})
			wantCode(t, err, sdk.CodeTargetNotFound, "take a fresh snapshot")
		})
	}
}

func TestUnknownRef(t *testing.T) {
	p := openHTML(t, `<button>Only</button>`)
	_, refs, err := Snapshot(ctxT(t, 5*time.Second), p, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: "e99"})
	wantCode(t, err, sdk.CodeTargetNotFound, "take a fresh snapshot")
	_, err = Type(ctxT(t, 5*time.Second), p, nil, Target{A11yRef: "e1"}, "x")
	wantCode(t, err, sdk.CodeTargetNotFound, "take a fresh snapshot")
}

// An observation's refs die with the next observation.
func TestObserveReplacesRefs(t *testing.T) {
	p := openHTML(t, `<button onclick="document.body.setAttribute('data-n', 'x')">Go</button>`)
	_, _, old, err := Describe(ctxT(t, 5*time.Second), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _, fresh, err := Describe(ctxT(t, 5*time.Second), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = click(ctxT(t, 5*time.Second), p, old, Target{A11yRef: "e1"})
	wantCode(t, err, sdk.CodeTargetNotFound, "take a fresh snapshot")
	if _, err := click(ctxT(t, 5*time.Second), p, fresh, Target{A11yRef: "e1"}); err != nil {
		t.Fatal(err)
	}
	if attr(t, p, "body", "data-n") != "x" {
		t.Error("fresh ref did not click")
	}
}

func TestMissingTarget(t *testing.T) {
	p := openHTML(t, `<button data-testid="here">Here</button>`)
	for _, tg := range []Target{{TestID: "nope"}, {Selector: "#nope"}} {
		_, err := click(ctxT(t, 300*time.Millisecond), p, nil, tg)
		se := wantCode(t, err, sdk.CodeTargetNotFound, tg.String())
		if se.Details["target"] != tg.String() {
			t.Errorf("details %v", se.Details)
		}
		_, err = Type(ctxT(t, 300*time.Millisecond), p, nil, tg, "x")
		wantCode(t, err, sdk.CodeTargetNotFound)
	}
	_, err := click(ctxT(t, time.Second), p, nil, Target{Selector: "button[[["})
	wantCode(t, err, sdk.CodeInvalidInput)
}

func TestWaitFor(t *testing.T) {
	p := openHTML(t, `<div id="late" hidden data-testid="late">Late</div><div class="never" style="display:none">x</div>
<script>setTimeout(() => document.getElementById('late').hidden = false, 300)</script>`)
	res, err := WaitFor(ctxT(t, 5*time.Second), p, nil, Target{TestID: "late"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Target != `[data-testid="late"]` {
		t.Errorf("result %+v", res)
	}
	_, err = WaitFor(ctxT(t, 300*time.Millisecond), p, nil, Target{Selector: ".never"})
	wantCode(t, err, sdk.CodeWaitTimeout, "not visible")
	_, err = WaitFor(ctxT(t, 300*time.Millisecond), p, nil, Target{Selector: ".absent"})
	wantCode(t, err, sdk.CodeWaitTimeout)
}

func TestClickDisabled(t *testing.T) {
	p := openHTML(t, `<button disabled data-testid="b">Confirm</button>`)
	_, err := click(ctxT(t, 400*time.Millisecond), p, nil, Target{TestID: "b"})
	se := wantCode(t, err, sdk.CodeClickFailed, "disabled")
	if se.Details["reason"] == nil {
		t.Errorf("details lack reason: %v", se.Details)
	}
}

func TestClickCovered(t *testing.T) {
	p := openHTML(t, `<button data-testid="b" onclick="document.body.setAttribute('data-hit','1')">Confirm</button>
<div id="overlay" class="loading-overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>`)
	_, err := click(ctxT(t, 400*time.Millisecond), p, nil, Target{TestID: "b"})
	wantCode(t, err, sdk.CodeClickFailed, "covered by div#overlay.loading-overlay")
	if attr(t, p, "body", "data-hit") != "" {
		t.Error("a covered button was clicked")
	}
}

// The overlay goes away while Click waits: the click lands.
func TestClickWaitsForOverlay(t *testing.T) {
	p := openHTML(t, `<button data-testid="b" onclick="document.body.setAttribute('data-hit','1')">Confirm</button>
<div id="overlay" style="position:fixed;inset:0"></div>
<script>setTimeout(() => document.getElementById('overlay').remove(), 300)</script>`)
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "b"}); err != nil {
		t.Fatal(err)
	}
	if attr(t, p, "body", "data-hit") != "1" {
		t.Error("not clicked")
	}
}

func TestClickPrefersVisibleMatch(t *testing.T) {
	p := openHTML(t, `<button data-testid="b" style="display:none" onclick="document.body.setAttribute('data-hit','hidden')">A</button>
<button data-testid="b" onclick="document.body.setAttribute('data-hit','shown')">B</button>
<div style="height:3000px"></div><button id="far" onclick="document.body.setAttribute('data-far','1')">Far</button>`)
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "b"}); err != nil {
		t.Fatal(err)
	}
	if got := attr(t, p, "body", "data-hit"); got != "shown" {
		t.Errorf("clicked %q, want the visible match", got)
	}
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{Selector: "#far"}); err != nil {
		t.Fatal(err)
	}
	if attr(t, p, "body", "data-far") != "1" {
		t.Error("element below the fold was not scrolled to and clicked")
	}
}

func TestTypeReplacesValue(t *testing.T) {
	p := openHTML(t, `<label for="pw">Password</label><input id="pw" type="password" name="password" autocomplete="current-password" data-testid="unlock-password" value="old secret">
<textarea data-testid="memo">line one
line two</textarea>
<input data-testid="ro" readonly value="fixed">
<div contenteditable="true" data-testid="ce">old</div>
<input type="number" data-testid="num" value="5"><input type="email" data-testid="mail" value="a@b.c">`)
	value := func(sel string) string {
		el, err := p.Timeout(5 * time.Second).Element(sel)
		if err != nil {
			t.Fatal(err)
		}
		v, err := el.Property("value")
		if err != nil {
			t.Fatal(err)
		}
		return v.Str()
	}
	res, err := Type(ctxT(t, 5*time.Second), p, nil, Target{TestID: "unlock-password"}, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if got := value("#pw"); got != "correct horse battery staple" {
		t.Errorf("value %q", got)
	}
	if res.TextLength != 28 || !res.Typed {
		t.Errorf("result %+v", res)
	}
	want := FieldInfo{Type: "password", Name: "password", ID: "pw", Label: "Password", Autocomplete: "current-password", TestID: "unlock-password"}
	if res.Field != want {
		t.Errorf("field %+v, want %+v", res.Field, want)
	}

	if _, err := Type(ctxT(t, 5*time.Second), p, nil, Target{TestID: "memo"}, "héllo ✓"); err != nil {
		t.Fatal(err)
	}
	if got := value("textarea"); got != "héllo ✓" {
		t.Errorf("textarea %q", got)
	}
	if _, err := Type(ctxT(t, 5*time.Second), p, nil, Target{TestID: "memo"}, ""); err != nil {
		t.Fatal(err)
	}
	if got := value("textarea"); got != "" {
		t.Errorf("empty text left %q", got)
	}
	if _, err := Type(ctxT(t, 5*time.Second), p, nil, Target{TestID: "ce"}, "new"); err != nil {
		t.Fatal(err)
	}
	if el, _ := p.Element(`[data-testid="ce"]`); el.MustText() != "new" {
		t.Errorf("contenteditable %q", el.MustText())
	}
	for id, text := range map[string]string{"num": "0.25", "mail": "me@example.org"} {
		if _, err := Type(ctxT(t, 5*time.Second), p, nil, Target{TestID: id}, text); err != nil {
			t.Fatal(err)
		}
		if got := value(`[data-testid="` + id + `"]`); got != text {
			t.Errorf("%s: value %q, want %q", id, got, text)
		}
	}
	_, err = Type(ctxT(t, 300*time.Millisecond), p, nil, Target{TestID: "ro"}, "x")
	wantCode(t, err, sdk.CodeTypeFailed, "read-only")
}

func TestTypeByRef(t *testing.T) {
	for name, snap := range snapshotters {
		t.Run(name, func(t *testing.T) {
			p := openHTML(t, `<input aria-label="Amount" value="1"><input aria-label="Amount" id="second" value="2">`)
			refs := snap(ctxT(t, 5*time.Second), t, p)
			ref := refNamed(t, refs, "textbox", "Amount", 1)
			if _, err := Type(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ref}, "0.5"); err != nil {
				t.Fatal(err)
			}
			el := p.MustElement("#second")
			if v := el.MustProperty("value").Str(); v != "0.5" {
				t.Errorf("value %q", v)
			}
		})
	}
}

func TestShadowAndIframe(t *testing.T) {
	p := open(t, server.URL+"/testdata/page.html")
	ids, err := TestIDs(ctxT(t, 5*time.Second), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, it := range ids {
		have[it.TestID] = true
	}
	for _, id := range []string{"shadow-button", "frame-button", "frame-input"} {
		if !have[id] {
			t.Errorf("testids lack %s", id)
		}
	}
	if have["hidden-button"] {
		t.Error("hidden testid listed")
	}

	frameClicked := func() string {
		f := p.MustElement("iframe").MustFrame()
		return attr(t, f, "body", "data-clicked")
	}
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "frame-button"}); err != nil {
		t.Fatal(err)
	}
	if frameClicked() != "yes" {
		t.Fatal("iframe button not clicked by testId")
	}
	for name, snap := range snapshotters {
		t.Run(name, func(t *testing.T) {
			refs := snap(ctxT(t, 5*time.Second), t, p)
			ref := refNamed(t, refs, "textbox", "Frame input", 0)
			if _, err := Type(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ref}, name); err != nil {
				t.Fatal(err)
			}
			f := p.MustElement("iframe").MustFrame()
			if v := f.MustElement("input").MustProperty("value").Str(); v != name {
				t.Errorf("frame input %q", v)
			}
			ref = refNamed(t, refs, "button", "Shadow action", 0)
			if _, err := click(ctxT(t, 5*time.Second), p, refs, Target{A11yRef: ref}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "shadow-button"}); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		t    Target
		ok   bool
		want string
	}{
		"none":     {Target{}, false, ""},
		"two":      {Target{TestID: "a", Selector: "b"}, false, ""},
		"bad ref":  {Target{A11yRef: "x1"}, false, ""},
		"ref":      {Target{A11yRef: "e3"}, true, "ref:e3"},
		"testid":   {Target{TestID: `say "hi"`}, true, `[data-testid="say \"hi\""]`},
		"selector": {Target{Selector: "button.primary"}, true, "button.primary"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.t.Validate()
			if tc.ok != (err == nil) {
				t.Fatalf("Validate() = %v", err)
			}
			if !tc.ok {
				wantCode(t, err, sdk.CodeInvalidInput)
				return
			}
			if got := tc.t.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// A click answers with what it changed: the URL and the visible testids
// that appeared and disappeared, capped.
func TestClickReportsChanges(t *testing.T) {
	p := openHTML(t, `
<div data-testid="home-landmark">home</div>
<div data-testid="old-panel">old</div>
<div id="box"></div>
<button data-testid="go" onclick="
  document.querySelector('[data-testid=old-panel]').style.display = 'none';
  document.querySelector('[data-testid=home-landmark]').remove();
  for (let i = 0; i < 12; i++) { const d = document.createElement('div'); d.dataset.testid = 'new-' + i; d.textContent = i; document.getElementById('box').append(d); }
  history.pushState(null, '', '#/send');">Go</button>
<button data-testid="noop">Nothing</button>`)
	res, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "noop"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || c.URLAfter != "" || len(c.TestIDsAppeared)+len(c.TestIDsDisappeared) != 0 {
		t.Errorf("a click that changed nothing reports %+v", c)
	}
	res, err = click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "go"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Changes
	if c == nil {
		t.Fatal("no changes reported")
	}
	if !strings.HasSuffix(c.URLAfter, "#/send") || strings.Contains(c.URLBefore, "#") {
		t.Errorf("url %q -> %q", c.URLBefore, c.URLAfter)
	}
	want := []string{"new-0", "new-1", "new-2", "new-3", "new-4", "new-5", "new-6", "new-7", "new-8", "new-9"}
	if strings.Join(c.TestIDsAppeared, ",") != strings.Join(want, ",") || c.MoreAppeared != 2 {
		t.Errorf("appeared %v (+%d), want %v (+2)", c.TestIDsAppeared, c.MoreAppeared, want)
	}
	if strings.Join(c.TestIDsDisappeared, ",") != "home-landmark,old-panel" || c.MoreDisappeared != 0 {
		t.Errorf("disappeared %v (+%d)", c.TestIDsDisappeared, c.MoreDisappeared)
	}
}

// A click's changes are handed over by the page through the binding as
// the click's handlers end, in a page whose Runtime domain nobody enabled
// before (Chrome installs bindings only while it is): asking for them
// instead costs a round trip more on every click.
func TestClickHandsOverThroughBinding(t *testing.T) {
	p := openHTML(t, `<div id="box"></div>
<button data-testid="go" onclick="const d = document.createElement('div'); d.dataset.testid = 'new'; d.textContent = 'new'; box.append(d);">Go</button>`)
	ctx := ctxT(t, 10*time.Second)
	events, stop := pageEvents(p.Context(ctx))
	defer stop()
	res, err := click(ctx, p, nil, Target{TestID: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || strings.Join(c.TestIDsAppeared, ",") != "new" {
		t.Fatalf("changes %+v, want the testid the handler added", c)
	}
	for {
		select {
		case msg := <-events:
			var ev proto.RuntimeBindingCalled
			if msg.SessionID == p.SessionID && msg.Method == ev.ProtoEvent() && msg.Load(&ev) && ev.Name == clickedBinding {
				return
			}
		case <-ctx.Done():
			t.Fatal("the page never called the binding")
		}
	}
}

// What a click's default action does (a form submitted, a label's control
// toggled: both run after the click event has ended) is in its changes.
func TestClickChangesIncludeDefaultAction(t *testing.T) {
	p := openHTML(t, `<div id="box"></div>
<form onsubmit="event.preventDefault(); const d = document.createElement('div'); d.dataset.testid = 'submitted'; d.textContent = 's'; box.append(d);">
  <input name="q"><button data-testid="send">Send</button>
</form>
<label data-testid="agree">Agree <input type="checkbox" onchange="const d = document.createElement('div'); d.dataset.testid = 'agreed'; d.textContent = 'a'; box.append(d);"></label>
<button data-testid="plain" onclick="const d = document.createElement('div'); d.dataset.testid = 'plain-' + box.children.length; d.textContent = 'p'; box.append(d);">Plain</button>`)
	for _, tc := range []struct{ target, want string }{
		{"send", "submitted"},
		{"agree", "agreed"},
		{"plain", "plain-2"},
	} {
		res, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: tc.target})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Changes; c == nil || strings.Join(c.TestIDsAppeared, ",") != tc.want {
			t.Errorf("click %s: changes %+v, want %s appeared", tc.target, c, tc.want)
		}
	}
}

// With Screens, a click's changes name the wallet screen before and after,
// read from the probe's elements in the same evaluations.
func TestClickReportsScreens(t *testing.T) {
	p := openHTML(t, `
<div data-testid="home-landmark">home</div>
<button data-testid="go" onclick="document.querySelector('[data-testid=home-landmark]').remove()">Go</button>`)
	sc := &Screens{
		Probe: map[string]string{"home": `[data-testid="home-landmark"]`},
		Name: func(_ context.Context, url string, els map[string]sdk.ElementProbe) string {
			if !strings.HasPrefix(url, "http") {
				return "bad url " + url
			}
			if els["home"].Present {
				return "home"
			}
			return "elsewhere"
		},
	}
	res, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "go"}, ClickOptions{Screens: sc})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || c.ScreenBefore != "home" || c.ScreenAfter != "elsewhere" {
		t.Errorf("changes %+v, want screen home -> elsewhere", c)
	}
	res, err = click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || c.ScreenBefore != "" || c.ScreenAfter != "" {
		t.Errorf("changes %+v without Screens name screens", c)
	}
}

// A click whose handler awaits something before it re-renders (a wallet's
// lock or unlock awaiting its background) reports the screen the page
// settles on, not the one its events ended on; a click that changes
// nothing reports the same screen.
func TestClickScreenAfterAsyncRender(t *testing.T) {
	p := openHTML(t, `
<div data-testid="home-landmark">home</div>
<button data-testid="later" onclick="setTimeout(() => { location.hash = 'unlock'; document.querySelector('[data-testid=home-landmark]').remove(); }, 40)">Lock</button>
<button data-testid="nothing">Nothing</button>`)
	sc := &Screens{
		Probe: map[string]string{"home": `[data-testid="home-landmark"]`},
		Name: func(_ context.Context, url string, els map[string]sdk.ElementProbe) string {
			if els["home"].Present {
				return "home"
			}
			return "elsewhere"
		},
	}
	res, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "nothing"}, ClickOptions{Screens: sc})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || c.ScreenBefore != "home" || c.ScreenAfter != "home" {
		t.Errorf("changes %+v, want home -> home", c)
	}
	res, err = click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "later"}, ClickOptions{Screens: sc})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || c.ScreenBefore != "home" || c.ScreenAfter != "elsewhere" || !strings.HasSuffix(c.URLAfter, "#unlock") {
		t.Errorf("changes %+v, want home -> elsewhere at #unlock", c)
	}
}

// An element that an animation keeps moving is not clicked: the click
// waits a frame to see it move, and fails saying so.
func TestClickMovingElement(t *testing.T) {
	p := openHTML(t, `<style>@keyframes slide { from { transform: translateX(0) } to { transform: translateX(300px) } }
#b { animation: slide 1s linear infinite }</style>
<div><button id="b" data-testid="b" onclick="document.body.setAttribute('data-hit','1')">Moving</button></div>`)
	_, err := click(ctxT(t, 500*time.Millisecond), p, nil, Target{TestID: "b"})
	wantCode(t, err, sdk.CodeClickFailed, "still moving")
	if attr(t, p, "body", "data-hit") != "" {
		t.Error("a moving button was clicked")
	}
}

// A click's press goes through the pipe unanswered, its release after it:
// the page sees each click's events once and in order.
func TestClickPipedPressInOrder(t *testing.T) {
	p := openHTML(t, `<button data-testid="b">B</button><script>
  window.seen = [];
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'])
    document.querySelector('button').addEventListener(type, () => seen.push(type));
</script>`)
	const n = 20
	for range n {
		if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	got := p.MustEval(`() => seen.join(' ')`).String()
	want := strings.TrimSpace(strings.Repeat("pointerdown mousedown pointerup mouseup click ", n))
	if got != want {
		t.Fatalf("the page saw\n%s\nwant %d times pointerdown mousedown pointerup mouseup click", got, n)
	}
}

// slowMo delays each input event of an action: a click sends two, a type
// one.
func TestSlowMo(t *testing.T) {
	p := openHTML(t, `<button data-testid="b" onclick="this.dataset.n = (+this.dataset.n || 0) + 1">B</button><input data-testid="i">`)
	const d = 300 * time.Millisecond
	ctx := WithSlowMo(ctxT(t, 10*time.Second), d)
	start := time.Now()
	if _, err := click(ctx, p, nil, Target{TestID: "b"}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 2*d {
		t.Errorf("click took %v with slowMo %v, want at least %v", took, d, 2*d)
	}
	if attr(t, p, "[data-testid=b]", "data-n") != "1" {
		t.Error("the slow click did not click once")
	}
	start = time.Now()
	if _, err := Type(ctx, p, nil, Target{TestID: "i"}, "x"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < d {
		t.Errorf("type took %v with slowMo %v", took, d)
	}
}

// movedAway is a button that covers a decoy until moveAway takes it
// elsewhere: a press aimed at its old box lands on the decoy.
const movedAway = `<button id="decoy" style="position:absolute;left:10px;top:10px;width:120px;height:40px"
 onclick="document.body.dataset.decoy = (+document.body.dataset.decoy || 0) + 1">Decoy</button>
<button id="b" data-testid="b" style="position:absolute;left:10px;top:10px;width:120px;height:40px;z-index:1"
 onclick="document.body.dataset.hit = (+document.body.dataset.hit || 0) + 1">Target</button>`

func moveAway(p *rodPage, left int) {
	p.MustEval(`(left) => { document.getElementById('b').style.left = left + 'px' }`, left)
}

// The element moves between the read of its box and the press: the page
// stops the press that lands on the decoy, and Click presses again on the
// element's new box.
func TestClickPressLandsElsewhere(t *testing.T) {
	p := openHTML(t, movedAway)
	presses := 0
	move := func(*rodPage) {
		if presses++; presses == 1 {
			moveAway(p, 300)
		}
	}
	res, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "b"}, ClickOptions{beforePress: move})
	if err != nil {
		t.Fatal(err)
	}
	if presses != 2 || len(res.MissedPresses) != 1 || !strings.Contains(res.MissedPresses[0], "button#decoy") {
		t.Errorf("%d presses, missed %q; want 2 (one stopped on the decoy, one on the new box)", presses, res.MissedPresses)
	}
	if got := attr(t, p, "body", "data-decoy"); got != "" {
		t.Errorf("the decoy under the old box was clicked %s times", got)
	}
	if got := attr(t, p, "body", "data-hit"); got != "1" {
		t.Errorf("the target was clicked %q times, want 1", got)
	}
	if res.Changes == nil {
		t.Error("no changes in the answer")
	}
}

// An element that moves before every press is not clicked, and nothing
// else is: Click gives up after maxMisses presses, saying what they hit.
func TestClickKeepsMissing(t *testing.T) {
	p := openHTML(t, movedAway)
	presses := 0
	move := func(*rodPage) {
		presses++
		moveAway(p, 300*(presses%2)+10)
	}
	_, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "b"}, ClickOptions{beforePress: move})
	se := wantCode(t, err, sdk.CodeClickFailed, "landed on button#decoy")
	if m, _ := se.Details["missedPresses"].([]string); len(m) != maxMisses {
		t.Errorf("missedPresses = %v, want %d", se.Details["missedPresses"], maxMisses)
	}
	if d, h := attr(t, p, "body", "data-decoy"), attr(t, p, "body", "data-hit"); d != "" || h != "" {
		t.Errorf("decoy clicked %q, target clicked %q; want neither", d, h)
	}
}
