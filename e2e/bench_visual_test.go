package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/visual"
)

// BenchmarkVisualCheck: a whole mm_visual_check (steady capture, diff,
// regions, the elements under them) against a plain viewport
// mm_screenshot on the same session, through MCP, medians of interleaved
// calls; target: a check <= 1.5x the screenshot. It also times the diff
// alone (visual.Diff + Regions) of two real 1280x720 screenshots: the
// wallet's home and its settings screen.
func BenchmarkVisualCheck(b *testing.B) {
	h, _ := walletHost(b)
	launch(b, h, map[string]any{})
	const n = 15
	home := visualCheck(b, h, map[string]any{"name": "bench-home"})
	visualCheck(b, h, map[string]any{"name": "bench-home"})
	var shot, match []time.Duration
	timed := func(f func()) time.Duration { start := time.Now(); f(); return time.Since(start) }
	for i := 0; i < n; i++ {
		plain := func() { must(b, h.Call("mm_screenshot", map[string]any{"name": "bench-plain", "fullPage": false})) }
		check := func() {
			if v := visualCheck(b, h, map[string]any{"name": "bench-home"}); v.Status != "match" {
				b.Fatalf("home: %+v", v)
			}
		}
		if i%2 == 0 {
			shot, match = append(shot, timed(plain)), append(match, timed(check))
		} else {
			match, shot = append(match, timed(check)), append(shot, timed(plain))
		}
	}
	must(b, h.Call("mm_navigate", map[string]any{"screen": "settings"}))
	var changed []time.Duration
	var settings visualOut
	for i := 0; i < n; i++ {
		changed = append(changed, timed(func() { settings = visualCheck(b, h, map[string]any{"name": "bench-home"}) }))
		if settings.Status != "changed" {
			b.Fatalf("settings: %+v", settings)
		}
	}
	load := func(p string) []byte {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	ia, err := visual.Decode(load(home.BaselinePath))
	if err != nil {
		b.Fatal(err)
	}
	ib, err := visual.Decode(load(settings.ScreenshotPath))
	if err != nil {
		b.Fatal(err)
	}
	var diffs []time.Duration
	for i := 0; i < 30; i++ {
		diffs = append(diffs, timed(func() {
			res, err := visual.Diff(ia, ib, visual.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			visual.Regions(res)
		}))
	}
	s, m := median(shot), median(match)
	b.ReportMetric(s, "screenshot-ms")
	b.ReportMetric(m, "check-match-ms")
	b.ReportMetric(median(changed), "check-changed-ms")
	b.ReportMetric(m/s, "match/screenshot")
	b.ReportMetric(median(changed)/s, "changed/screenshot")
	b.ReportMetric(median(diffs), "diff-real-ms")
}
