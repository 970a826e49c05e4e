package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// seqCalls are the calls of one repetition of BenchmarkSequence, in order.
var seqCalls = []string{"navigate", "snapshot", "click", "screenshot"}

// seqPage is one page of BenchmarkSequence: how mmcp and the bare client
// reach it, and the element both click (by the snapshot's ref, by its
// point).
type seqPage struct {
	name     string
	url      string // "" for the wallet's home
	role     string // the clicked node (its click changes nothing): role and name
	nodeName string
	selector string // the same element for the bare click
}

// BenchmarkSequence runs what an agent runs, back to back (issue 53):
// navigate -> accessibility snapshot -> click by the snapshot's ref ->
// viewport screenshot with its image returned, each timed as an MCP client
// sees it (its wall time through the stdio transport; benchClient), on the
// wallet's home,
// the MetaMask test dapp (about 1,300 AX nodes) and a page of 1,000 rows
// (about 24,000 AX nodes); the floor is the same sequence of bare CDP calls
// on the same Chrome in the same run (Page.navigate to the load event,
// Accessibility.getFullAXTree, the Input.dispatchMouseEvent press/release
// pair, Page.captureScreenshot with optimizeForSpeed). Run it with
// -benchtime 15x for the 15 repetitions. Each repetition runs three
// sequences in rotating order, each after the session settled: the floor,
// mmcp back to back (a call follows the previous one's answer at once: one
// that may change the page waits for the previous records, a read-only one
// runs before them; the navigate follows an untimed
// repetition, as it follows the previous one in a run), and mmcp
// with the session settled before every call (the idle rows). It reports per call the
// medians and <call>-x-floor (back to back / floor) and <call>-x-idle
// (back to back / idle).
func BenchmarkSequence(b *testing.B) {
	c, ws := walletRawHost(b)
	c.call(b, "mm_launch", withFreePorts(b, map[string]any{"stateMode": "default"}))
	b.Cleanup(func() { c.call(b, "mm_cleanup", map[string]any{}) })
	br := bareCDP(b, ws)
	st, _ := c.call(b, "mm_get_state", map[string]any{})
	cur, _ := st["result"].(map[string]any)["state"].(map[string]any)["currentUrl"].(string)
	home, _, _ := strings.Cut(cur, "#")
	pages := []seqPage{
		{"wallet-home", "", "heading", "Account 1", ".overview h1"},
		{"test-dapp", testDappServer(b).URL + "/", "heading", "E2E Test Dapp", "#logo-text"},
		{"1000-rows", rowsPage(b, 1000), "button", "Count", `[data-testid="counter"]`},
	}
	ctx := context.Background()
	for _, pg := range pages {
		url := pg.url
		nav := map[string]any{"screen": "url", "url": pg.url}
		if pg.url == "" {
			url = home
			nav = map[string]any{"screen": "home"}
		}
		c.call(b, "mm_navigate", nav)
		page := pageAt(b, br, url)
		pt := pointIn(b, page, pg.selector)
		floor := []func(){
			func() {
				wait := page.Context(ctx).WaitNavigation(proto.PageLifecycleEventNameLoad)
				if err := page.Navigate(url); err != nil {
					b.Fatal(err)
				}
				wait()
			},
			func() {
				if _, err := (proto.AccessibilityGetFullAXTree{}).Call(page); err != nil {
					b.Fatal(err)
				}
			},
			func() { barePress(b, page, pt) },
			func() {
				if _, err := (proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, OptimizeForSpeed: true}).Call(page); err != nil {
					b.Fatal(err)
				}
			},
		}
		var ref string
		mmcp := []func(){
			func() { c.call(b, "mm_navigate", nav) },
			func() {
				env, _ := c.call(b, "mm_accessibility_snapshot", map[string]any{})
				nodes, _ := env["result"].(map[string]any)["nodes"].([]any)
				ref = ""
				for _, n := range nodes {
					n, _ := n.(map[string]any)
					if name, _ := n["name"].(string); n["role"] == pg.role && strings.TrimSpace(name) == pg.nodeName {
						ref, _ = n["ref"].(string)
						break
					}
				}
				if ref == "" {
					b.Fatalf("%s: no %s %q in the snapshot", pg.name, pg.role, pg.nodeName)
				}
			},
			func() { c.call(b, "mm_click", map[string]any{"a11yRef": ref}) },
			func() {
				_, images := c.call(b, "mm_screenshot", map[string]any{"name": "bench", "fullPage": false, "includeBase64": true})
				if len(images) != 1 || images[0].(map[string]any)["data"] == "" {
					b.Fatalf("%s: the screenshot returned no image", pg.name)
				}
			},
		}
		settle := func() { c.call(b, "mm_knowledge_last", map[string]any{"n": 1}) }
		b.Run(pg.name, func(b *testing.B) {
			times := map[string][][]time.Duration{} // kind -> call -> durations
			for _, k := range []string{"floor", "b2b", "idle"} {
				times[k] = make([][]time.Duration, len(seqCalls))
			}
			runSeq := func(kind string) {
				calls := floor
				if kind != "floor" {
					calls = mmcp
				}
				settle()
				if kind == "b2b" {
					// As in a run of repetitions, the navigate follows the
					// previous repetition at once, untimed here: its
					// screenshot answered, and the records of its click and
					// screenshot are still being made. The whole repetition
					// runs, not its screenshot alone: after the floor's bare
					// click, a lone screenshot's record would walk a page
					// changed behind mmcp's back, which no run of mmcp's
					// own calls has.
					for _, f := range calls {
						f()
					}
				}
				for i, f := range calls {
					if kind == "idle" {
						settle()
					}
					start := time.Now()
					f()
					times[kind][i] = append(times[kind][i], time.Since(start))
				}
			}
			order := []string{"floor", "b2b", "idle"}
			for i := 0; i < b.N; i++ {
				for j := range order {
					runSeq(order[(i+j)%len(order)])
				}
			}
			for i, c := range seqCalls {
				f, bb, idle := median(times["floor"][i]), median(times["b2b"][i]), median(times["idle"][i])
				b.ReportMetric(f, c+"-floor-ms")
				b.ReportMetric(bb, c+"-b2b-ms")
				b.ReportMetric(idle, c+"-idle-ms")
				b.ReportMetric(bb/f, c+"-x-floor")
				b.ReportMetric(bb/idle, c+"-x-idle")
			}
		})
	}
}

// pointIn is a point inside the element selector finds on page.
func pointIn(b testing.TB, page *rod.Page, selector string) *proto.Point {
	el, err := page.Element(selector)
	if err != nil {
		b.Fatal(err)
	}
	shape, err := el.Shape()
	if err != nil {
		b.Fatal(err)
	}
	return shape.OnePointInside()
}

// barePress is the floor of a click: the bare press/release pair at pt.
func barePress(b testing.TB, page *rod.Page, pt *proto.Point) {
	for _, t := range []proto.InputDispatchMouseEventType{proto.InputDispatchMouseEventTypeMousePressed, proto.InputDispatchMouseEventTypeMouseReleased} {
		if err := (proto.InputDispatchMouseEvent{Type: t, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, ClickCount: 1}).Call(page); err != nil {
			b.Fatal(err)
		}
	}
}
