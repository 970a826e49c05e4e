package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// rowsPage serves a page of n rows, about 15 accessibility nodes each, with
// a counter button on top.
func rowsPage(b testing.TB, n int) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>rows</title></head><body><h1>Rows</h1><button data-testid="counter" onclick="this.dataset.n=(+this.dataset.n||0)+1">Count</button><main>`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `<section><h2>Row %d</h2><p>text %d <b>bold</b></p><a href="#r%d" data-testid="link-%d">link %d</a><label>field %d <input></label><button>b%d</button><select aria-label="pick %d"><option>one</option><option>two</option></select></section>`, i, i, i, i, i, i, i, i)
	}
	sb.WriteString(`</main></body></html>`)
	page := sb.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	b.Cleanup(srv.Close)
	return srv.URL + "/"
}

// bareCDP attaches a second DevTools client to the session's Chrome (the
// port in its profile's DevToolsActivePort): the floor every primitive is
// compared with, measured on the same Chrome in the same run.
func bareCDP(b testing.TB, ws string) *rod.Browser {
	b.Helper()
	var dir string
	for _, pid := range chromeFor(ws) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		for _, a := range strings.Split(string(cmd), "\x00") {
			if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
				dir = v
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil {
		b.Fatalf("DevToolsActivePort of %q: %v", dir, err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	br := rod.New().ControlURL("ws://127.0.0.1:" + lines[0] + lines[1])
	if err := br.Connect(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = br.Close })
	return br
}

// pageAt finds the page target whose URL starts with prefix.
func pageAt(b testing.TB, br *rod.Browser, prefix string) *rod.Page {
	b.Helper()
	pages, err := br.Pages()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range pages {
		if info, err := p.Info(); err == nil && strings.HasPrefix(info.URL, prefix) {
			return p
		}
	}
	b.Fatalf("no page at %s", prefix)
	return nil
}

// timeN runs f n times and returns the median in milliseconds.
func timeN(b *testing.B, n int, f func()) float64 {
	var ds []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		f()
		ds = append(ds, time.Since(start))
	}
	return median(ds)
}

// answerTimes runs floor and call n times each, interleaved in
// alternating order (what one leaves behind, such as a frame just
// captured, falls on both alike), each right after the session is idle
// (idleTime), and returns their median times; then it
// runs call n times back to back and returns that median too (each call
// then also waits for the previous call's record: its state read, and for
// click, navigate and screenshot the full observation of the page).
func answerTimes(b *testing.B, h *Host, n int, floor, call func()) (floorMs, answer, backToBack float64) {
	var fs, ds []time.Duration
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			fs = append(fs, idleTime(b, h, floor))
			ds = append(ds, idleTime(b, h, call))
		} else {
			ds = append(ds, idleTime(b, h, call))
			fs = append(fs, idleTime(b, h, floor))
		}
	}
	return median(fs), median(ds), timeN(b, n, call)
}

// idleTime times f right after the session is idle (mm_knowledge_last
// waits for the previous call's step record without taking the session).
func idleTime(b *testing.B, h *Host, f func()) time.Duration {
	must(b, h.Call("mm_knowledge_last", map[string]any{"n": 1}))
	start := time.Now()
	f()
	return time.Since(start)
}

// BenchmarkPrimitives times snapshot, navigate, screenshot and click
// through MCP (host process, stdio) and the bare CDP call each one rests on,
// on the same Chrome and page in the same run, on the wallet's home, a
// 1,000+-node page and a 10,000+-node page, and reports the medians and
// their ratio (x-floor, the answer of a call made on an idle session): the
// speed targets of the project. b2b-ms is the median of the same calls back
// to back; mcp-roundtrip is the share of every answer that is MCP itself.
func BenchmarkPrimitives(b *testing.B) {
	h, ws := walletHost(b)
	launch(b, h, map[string]any{"stateMode": "default"})
	br := bareCDP(b, ws)
	pages := []struct{ name, url string }{
		{"wallet-home", ""},
		{"1k-nodes", rowsPage(b, 80)},
		{"10k-nodes", rowsPage(b, 800)},
	}
	ctx := context.Background()
	// what every answer through MCP pays before any page work: a call that
	// reads the knowledge store and touches no page
	b.Run("mcp-roundtrip", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			ds = append(ds, idleTime(b, h, func() { must(b, h.Call("mm_knowledge_last", map[string]any{"n": 1})) }))
		}
		b.ReportMetric(median(ds), "median-ms")
	})
	for _, pg := range pages {
		if pg.url != "" {
			must(b, h.Call("mm_navigate", map[string]any{"screen": "url", "url": pg.url}))
		}
		var st struct{ State struct{ CurrentURL string } }
		must(b, h.Call("mm_get_state", map[string]any{})).Decode(b, &st)
		page := pageAt(b, br, st.State.CurrentURL)
		// an idempotent click: the page stays as it is
		clickID := "counter"
		if pg.url == "" {
			clickID = "account-overview__activity-tab"
		}
		report := func(b *testing.B, mcp, b2b, floor float64) {
			b.ReportMetric(mcp, "median-ms")
			b.ReportMetric(b2b, "b2b-ms")
			b.ReportMetric(floor, "floor-ms")
			b.ReportMetric(mcp/floor, "x-floor")
		}
		b.Run(pg.name+"/snapshot", func(b *testing.B) {
			var size int
			floor, mcp, b2b := answerTimes(b, h, b.N, func() {
				if _, err := (proto.AccessibilityGetFullAXTree{}).Call(page); err != nil {
					b.Fatal(err)
				}
			}, func() { size = len(must(b, h.Call("mm_accessibility_snapshot", map[string]any{})).Result) })
			report(b, mcp, b2b, floor)
			b.ReportMetric(float64(size), "resp-bytes")
		})
		b.Run(pg.name+"/screenshot", func(b *testing.B) {
			floor, mcp, b2b := answerTimes(b, h, b.N, func() {
				if _, err := (proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, OptimizeForSpeed: true}).Call(page); err != nil {
					b.Fatal(err)
				}
			}, func() { must(b, h.Call("mm_screenshot", map[string]any{"name": "bench", "fullPage": false})) })
			report(b, mcp, b2b, floor)
		})
		if pg.url != "" {
			b.Run(pg.name+"/navigate", func(b *testing.B) {
				floor, mcp, b2b := answerTimes(b, h, b.N, func() {
					wait := page.Context(ctx).WaitNavigation(proto.PageLifecycleEventNameLoad)
					if err := page.Navigate(pg.url); err != nil {
						b.Fatal(err)
					}
					wait()
				}, func() { must(b, h.Call("mm_navigate", map[string]any{"screen": "url", "url": pg.url})) })
				report(b, mcp, b2b, floor)
			})
			page = pageAt(b, br, pg.url)
		}
		b.Run(pg.name+"/click", func(b *testing.B) {
			pt := pointIn(b, page, `[data-testid="`+clickID+`"]`)
			floor, mcp, b2b := answerTimes(b, h, b.N, func() { barePress(b, page, pt) }, func() { must(b, h.Call("mm_click", map[string]any{"testId": clickID})) })
			report(b, mcp, b2b, floor)
		})
		if pg.url == "" {
			must(b, h.Call("mm_navigate", map[string]any{"screen": "home"}))
		}
	}
}
