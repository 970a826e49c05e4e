package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// BenchmarkWatchEditToScreen: from the write of a wallet source file to
// the reloaded, unlocked wallet screen (mm_build_watch_wait_ready's
// answer: the real watcher's rebuild, the in-place reload, the unlock),
// against the full mm_cleanup + mm_launch cycle that was the only way
// before, measured in the same run. Target: edit-to-screen median <= 1.5 s
// for the test wallet.
func BenchmarkWatchEditToScreen(b *testing.B) {
	ws := watchWorkspace(b)
	h := startHost(b, HostOptions{Repo: ws, Args: []string{"--headless"}})
	b.Cleanup(func() {
		h.Call("mm_build_watch_stop", map[string]any{})
		h.Call("mm_cleanup", map[string]any{})
	})
	must(b, h.Call("mm_build_watch_start", map[string]any{}))
	must(b, waitReady(b, h))
	args := func() map[string]any { return map[string]any{"ports": map[string]any{"anvil": testutil.FreePort(b)}} }
	launchFree(b, h, args())

	var edits, cycles []time.Duration
	var reloads []float64
	for i := 0; i < b.N; i++ {
		label := fmt.Sprintf("Tokenz%d", i%3+1) // never the label before
		start := time.Now()
		editHome(b, ws, tabLabel(label))
		var got waitReadyResult
		must(b, waitReady(b, h)).Decode(b, &got)
		edits = append(edits, time.Since(start))
		if !got.Reloaded || got.Screen != "home" || !got.Reload.IsUnlocked {
			b.Fatalf("edit %d: %+v", i, got)
		}
		reloads = append(reloads, float64(got.ReloadMs))
	}
	for i := 0; i < 3; i++ {
		start := time.Now()
		must(b, h.Call("mm_cleanup", map[string]any{}))
		launchFree(b, h, args())
		cycles = append(cycles, time.Since(start))
	}
	b.ReportMetric(median(edits), "edit-to-screen-median-ms")
	b.ReportMetric(medianF(reloads), "reload-median-ms")
	b.ReportMetric(median(cycles), "cleanup+launch-median-ms")
}

func medianF(xs []float64) float64 {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x * float64(time.Millisecond))
	}
	return median(ds)
}
