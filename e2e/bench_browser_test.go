package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// bigPage serves a page with well over 1,000 accessibility nodes.
func bigPage(b testing.TB) *httptest.Server {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><body><h1>Big</h1><button data-testid="counter" onclick="this.dataset.n=(+this.dataset.n||0)+1">Count</button>`)
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&sb, `<section><h2>Row %d</h2><p>text %d</p><a href="#r%d" data-testid="link-%d">link %d</a><input aria-label="field %d"><button>b%d</button></section>`, i, i, i, i, i, i, i)
	}
	sb.WriteString(`</body></html>`)
	page := sb.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkTools times tools through MCP (host process, stdio) on the wallet
// home and on a page with more than 1,000 accessibility nodes.
func BenchmarkTools(b *testing.B) {
	h, _ := walletHost(b)
	launch(b, h, map[string]any{"stateMode": "default"})
	srv := bigPage(b)
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"snapshot", "mm_accessibility_snapshot", map[string]any{}},
		{"list_testids", "mm_list_testids", map[string]any{}},
		{"describe_screen", "mm_describe_screen", map[string]any{}},
		{"click_testid", "mm_click", map[string]any{"testId": "counter"}},
		{"screenshot", "mm_screenshot", map[string]any{"name": "bench", "fullPage": false}},
	}
	for _, page := range []string{"wallet-home", "1000-nodes"} {
		if page == "1000-nodes" {
			must(b, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
		}
		for _, c := range cases {
			if c.name == "click_testid" && page == "wallet-home" {
				c.args = map[string]any{"testId": "copy-address"}
			}
			b.Run(page+"/"+c.name, func(b *testing.B) {
				var ds []time.Duration
				for i := 0; i < b.N; i++ {
					start := time.Now()
					must(b, h.CallCtx(context.Background(), c.tool, c.args, nil))
					ds = append(ds, time.Since(start))
				}
				b.ReportMetric(median(ds), "median-ms")
			})
		}
	}
}

// BenchmarkLaunchToReady: mm_launch of the test wallet without a chain
// (onboarding state), to the wallet's first screen, then cleanup.
func BenchmarkLaunchToReady(b *testing.B) {
	ws := walletWorkspace(b)
	dir := hostDirFor(b, "fixture")
	h := startHost(b, HostOptions{Repo: ws, Bin: dir, Args: []string{"--headless"}})
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		launch(b, h, map[string]any{"stateMode": "onboarding"})
		ds = append(ds, time.Since(start))
		must(b, h.Call("mm_cleanup", map[string]any{}))
	}
	b.ReportMetric(median(ds), "median-ms")
}

// hostDirFor is a host directory with only the named built-in plugins.
func hostDirFor(t testing.TB, plugins ...string) string {
	t.Helper()
	dir := t.TempDir()
	installPlugin(t, bin+"/mmcp", dir, "x")
	if err := renameFile(dir+"/mmcp-plugin-x", dir+"/mmcp"); err != nil {
		t.Fatal(err)
	}
	for _, p := range plugins {
		installPlugin(t, bin+"/mmcp-plugin-"+p, dir, p)
	}
	return dir
}

// BenchmarkClickAnswer: on a page of more than 10,000 nodes, a single
// mm_click (answered before its full observation, which is recorded right
// after) against the same click as a one-step mm_run_steps batch with
// includeObservations "none". Each timed call starts on an idle session (an
// untimed mm_knowledge_last waits for the previous record first), as an
// agent's calls do; "back-to-back" times single clicks with no pause, each
// waiting for the previous click's observation. Done when single <= 1.5x
// batch-none.
func BenchmarkClickAnswer(b *testing.B) {
	h, _ := walletHost(b)
	launch(b, h, map[string]any{"stateMode": "default"})
	must(b, h.Call("mm_navigate", map[string]any{"screen": "url", "url": rowsPage(b, 800)}))
	click := map[string]any{"testId": "counter"}
	batch := map[string]any{"includeObservations": "none", "steps": []map[string]any{{"tool": "mm_click", "args": click}}}
	idle := func() { must(b, h.Call("mm_knowledge_last", map[string]any{"n": 1})) }
	medians := map[string]float64{}
	timed := func(name string, pause bool, tool string, args map[string]any) {
		b.Run(name, func(b *testing.B) {
			var ds []time.Duration
			for i := 0; i < b.N; i++ {
				if pause {
					idle()
				}
				start := time.Now()
				must(b, h.CallCtx(context.Background(), tool, args, nil))
				ds = append(ds, time.Since(start))
			}
			medians[name] = median(ds)
			b.ReportMetric(medians[name], "median-ms")
		})
	}
	timed("single", true, "mm_click", click)
	timed("batch-none", true, "mm_run_steps", batch)
	timed("back-to-back", false, "mm_click", click)
	if s, n := medians["single"], medians["batch-none"]; n > 0 && s > 1.5*n {
		b.Errorf("a single click answers in %.1f ms, more than 1.5x the batched click's %.1f ms", s, n)
	}
}
