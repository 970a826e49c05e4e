package e2e

import (
	"testing"
	"time"
)

// BenchmarkCheckpointRestore measures, in one run on the test wallet,
// mm_checkpoint_restore (the median of 10, each with the set-up's state:
// dapp connected, hst deployed, 1 ETH sent, the dapp tab back) beside what
// a branch costs without it: a relaunch plus the set-up replayed (the
// median of 3). Each restore is timed at the client.
func BenchmarkCheckpointRestore(b *testing.B) {
	h, _ := walletHost(b)
	dapp := dappServer(b)
	launch(b, h, map[string]any{"stateMode": "default"})
	checkpointSetUp(b, h, dapp.URL)
	must(b, h.Call("mm_checkpoint_save", map[string]any{"name": "A"}))
	var restores, server, relaunches []time.Duration
	for i := 0; i < b.N; i++ {
		for j := 0; j < 10; j++ {
			sendFromDapp(b, h, true) // a branch to undo
			start := time.Now()
			var r restoreAnswer
			must(b, h.Call("mm_checkpoint_restore", map[string]any{"name": "A"})).Decode(b, &r)
			restores = append(restores, time.Since(start))
			server = append(server, time.Duration(r.RestoreMs)*time.Millisecond)
			if j < 3 {
				b.Logf("restore %d split: %v, reload %v", j, r.Ms, r.ReloadSplitMs)
			}
		}
		for j := 0; j < 3; j++ {
			must(b, h.Call("mm_cleanup", map[string]any{}))
			start := time.Now()
			launch(b, h, map[string]any{"stateMode": "default"})
			checkpointSetUp(b, h, dapp.URL)
			relaunches = append(relaunches, time.Since(start))
		}
	}
	r, s, l := median(restores), median(server), median(relaunches)
	b.ReportMetric(r, "restore-ms")
	b.ReportMetric(l, "relaunch+setup-ms")
	b.Logf("restore median %.0f ms (server side %.0f ms) over %d; relaunch + replayed set-up median %.0f ms over %d; ratio %.1fx",
		r, s, len(restores), l, len(relaunches), l/r)
}
