package discovery

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/sdk"
)

// bigPage has well over 1,000 AX nodes (rows of heading, text, button,
// link and input).
func bigPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><body><h1>Tokens</h1>`)
	for i := range 65 {
		fmt.Fprintf(&b, `<div class="row" data-testid="row-%d"><h3>Item %d</h3><p>Description of item %d with <b>bold</b> text</p>`+
			`<button data-testid="btn-%d">Buy %d</button><a href="#i%d">Details %d</a><input aria-label="Quantity %d"></div>`,
			i, i, i, i, i, i, i, i)
	}
	b.WriteString(`<button data-testid="target" onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Target</button></body></html>`)
	return b.String()
}

const smallTarget = `<button data-testid="target" onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Target</button>`

type benchPage struct {
	name string
	url  func() string
}

var benchPages = []benchPage{
	{"small", func() string { return serve(noFrame(readFixture()) + smallTarget) }},
	{"small-iframe", func() string { return serve(readFixture() + smallTarget) }},
	{"big", bigPage2},
}

func bigPage2() string { return serve(bigPage()) }

// noFrame drops the fixture's iframe: a bare getFullAXTree does not read
// child frames, so comparisons against it use a page without one.
func noFrame(html string) string {
	i := strings.Index(html, "<iframe")
	j := strings.Index(html, "</iframe>")
	return html[:i] + html[j+len("</iframe>"):]
}

func readFixture() string {
	b, err := fixtures.ReadFile("testdata/page.html")
	if err != nil {
		panic(err)
	}
	return strings.Replace(string(b), `src="frame.html"`, `src="/testdata/frame.html"`, 1)
}

// medianOf runs f b.N times and reports the median duration in ms.
func medianOf(b *testing.B, f func() error) {
	b.Helper()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		s := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(s))
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
}

func eachPage(b *testing.B, f func(b *testing.B, p *rod.Page, ctx context.Context)) {
	for _, bp := range benchPages {
		b.Run(bp.name, func(b *testing.B) {
			p := open(b, bp.url())
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			ax, err := proto.AccessibilityGetFullAXTree{}.Call(p)
			if err != nil {
				b.Fatal(err)
			}
			f(b, p, ctx)
			b.ReportMetric(float64(len(ax.Nodes)), "ax-nodes")
		})
	}
}

func BenchmarkAXTreeBare(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		medianOf(b, func() error {
			_, err := proto.AccessibilityGetFullAXTree{}.Call(p.Context(ctx))
			return err
		})
	})
}

func BenchmarkSnapshot(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		medianOf(b, func() error {
			_, _, err := Snapshot(ctx, p, "")
			return err
		})
	})
}

func BenchmarkTestIDs(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		medianOf(b, func() error {
			_, err := TestIDs(ctx, p, 0)
			return err
		})
	})
}

func BenchmarkObserve(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		medianOf(b, func() error {
			_, _, err := Observe(ctx, p, 0, nil, "")
			return err
		})
	})
}

func BenchmarkClickTestID(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		medianOf(b, func() error {
			_, err := click(ctx, p, nil, Target{TestID: "target"})
			return err
		})
	})
}

// BenchmarkRodClick is the baseline: rod's own Element.Click on an element
// found once up front.
func BenchmarkRodClick(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		el, err := p.Context(ctx).Element(`[data-testid="target"]`)
		if err != nil {
			b.Fatal(err)
		}
		medianOf(b, func() error {
			return el.Click(proto.InputMouseButtonLeft, 1)
		})
	})
}

// BenchmarkClickScreensShown: a wallet-page click (with Screens) that
// shows something at once (a testid appeared) is answered as measured; one
// that changes nothing that shows waits for the page to settle (120 ms of
// quiet) before it reads the screen again.
func BenchmarkClickScreensShown(b *testing.B) {
	p := openHTML(b, `
<div data-testid="home-landmark">home</div>
<div data-testid="panel" hidden>panel</div>
<button data-testid="toggle" onclick="const p = document.querySelector('[data-testid=panel]'); p.hidden = !p.hidden">Toggle</button>
<button data-testid="nothing">Nothing</button>`)
	sc := &Screens{
		Probe: map[string]string{"home": `[data-testid="home-landmark"]`},
		Name:  func(context.Context, string, map[string]sdk.ElementProbe) string { return "home" },
	}
	for _, id := range []string{"toggle", "nothing"} {
		b.Run(id, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := click(context.Background(), p, nil, Target{TestID: id}, ClickOptions{Screens: sc}); err != nil {
					b.Fatal(err)
				}
			}
		})
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
