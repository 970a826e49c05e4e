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

// rowsPage has about ten thousand DOM nodes, as the e2e sequence
// benchmark's 10k-nodes page: n sections of heading, text, link, labelled
// field, button and select, under a counter button.
func rowsPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>rows</title></head><body><h1>Rows</h1>` + smallTarget + `<main>`)
	for i := range n {
		fmt.Fprintf(&b, `<section><h2>Row %d</h2><p>text %d <b>bold</b></p><a href="#r%d" data-testid="link-%d">link %d</a><label>field %d <input></label><button>b%d</button><select aria-label="pick %d"><option>one</option><option>two</option></select></section>`, i, i, i, i, i, i, i, i)
	}
	b.WriteString(`</main></body></html>`)
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
	{"rows800", func() string { return serve(rowsPage(800)) }},
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
	medianAfter(b, nil, f)
}

// medianAfter is medianOf that runs prep (when not nil) before each f,
// outside the time measured.
func medianAfter(b *testing.B, prep func() error, f func() error) {
	b.Helper()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		if prep != nil {
			if err := prep(); err != nil {
				b.Fatal(err)
			}
		}
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

// reload loads url in p again and waits for its load event.
func reload(ctx context.Context, p *rod.Page, url string) error {
	wait := p.Context(ctx).WaitNavigation(proto.PageLifecycleEventNameLoad)
	if err := p.Context(ctx).Navigate(url); err != nil {
		return err
	}
	wait()
	return nil
}

// BenchmarkSnapshotFresh is the first snapshot of each new document: the
// page is loaded again, untimed, before each walk (as a snapshot right
// after a navigate walks it).
func BenchmarkSnapshotFresh(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		url := p.MustInfo().URL
		medianAfter(b, func() error { return reload(ctx, p, url) }, func() error {
			_, _, err := Snapshot(ctx, p, "")
			return err
		})
	})
}

// BenchmarkFirstCall is the first call by name into a new document (a
// one-testid TestIDs), the page loaded again, untimed, before each: sent,
// the call sends this package's scripts (about 60 KB) into the world it
// makes; preinstalled, the document made the world with them as it
// started (Preinstall).
func BenchmarkFirstCall(b *testing.B) {
	for _, pre := range []bool{false, true} {
		name := "sent"
		if pre {
			name = "preinstalled"
		}
		b.Run(name, func(b *testing.B) {
			eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
				if pre {
					if err := Preinstall(p); err != nil {
						b.Fatal(err)
					}
				}
				url := p.MustInfo().URL
				prep := func() error {
					if err := reload(ctx, p, url); err != nil {
						return err
					}
					// the call makes the new document's world, not a retry
					main, err := mainFrame(p)
					if err != nil {
						return err
					}
					forgetWorld(p, main)
					// once the page's main thread is free
					_, err = proto.RuntimeEvaluate{Expression: "0"}.Call(p.Context(ctx))
					return err
				}
				medianAfter(b, prep, func() error {
					_, err := TestIDs(ctx, p, 1)
					return err
				})
			})
		})
	}
}

func BenchmarkTestIDs(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		medianOf(b, func() error {
			_, err := TestIDs(ctx, p, 0)
			return err
		})
	})
}

// BenchmarkObserve is the walk of a step record after a click: an
// attribute of the target button changes before each, as its click does,
// so the walk kept for the unchanged page is never reused.
func BenchmarkObserve(b *testing.B) {
	eachPage(b, func(b *testing.B, p *rod.Page, ctx context.Context) {
		toggle := func() error {
			_, err := p.Context(ctx).Eval(`() => document.querySelector('[data-testid="target"]').toggleAttribute('data-pressed')`)
			return err
		}
		medianAfter(b, toggle, func() error {
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
// quiet) before it reads the screen again, unless the page's background
// requests are counted and the click sent none (nothing-tracked).
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
	// The same click on a page whose background requests are counted
	// (TrackBackground): it sent none, so it is answered without the
	// quiet wait.
	tracked := openTracked(b, `<div data-testid="home-landmark">home</div><button data-testid="nothing">Nothing</button>`)
	b.Run("nothing-tracked", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := click(context.Background(), tracked, nil, Target{TestID: "nothing"}, ClickOptions{Screens: sc}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
