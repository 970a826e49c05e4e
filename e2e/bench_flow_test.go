package e2e

import (
	"testing"
	"time"
)

// BenchmarkFlowModes: a 20-step flow on the test wallet (settings and back,
// ten times) as one mm_run_steps batch in each observation mode, and the
// same 20 steps as single calls (full observation each). Reported: the
// median batch time and per-step time of each mode.
func BenchmarkFlowModes(b *testing.B) {
	h, _ := walletHost(b)
	launch(b, h, map[string]any{"stateMode": "default"})
	var steps []map[string]any
	for i := 0; i < 10; i++ {
		steps = append(steps,
			map[string]any{"tool": "mm_click", "args": map[string]any{"testId": "global-menu-settings"}},
			map[string]any{"tool": "mm_click", "args": map[string]any{"testId": "settings-back"}})
	}
	for _, mode := range []string{"none", "failures", "all"} {
		b.Run(mode, func(b *testing.B) {
			var ds []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				var out batchResult
				must(b, h.Call("mm_run_steps", map[string]any{"includeObservations": mode, "steps": steps})).Decode(b, &out)
				if out.Summary.Succeeded != 20 {
					b.Fatalf("summary %+v", out.Summary)
				}
				ds = append(ds, time.Since(start))
			}
			b.ReportMetric(median(ds), "median-ms")
			b.ReportMetric(median(ds)/20, "ms/step")
		})
	}
	b.Run("single-calls", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			for _, s := range steps {
				must(b, h.Call(s["tool"].(string), s["args"]))
			}
			ds = append(ds, time.Since(start))
		}
		b.ReportMetric(median(ds), "median-ms")
		b.ReportMetric(median(ds)/20, "ms/step")
	})
}
