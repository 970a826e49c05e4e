package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client"
)

// BenchmarkParallelSessions launches 4 default sessions at once from 4
// HTTP clients of one serve and compares the wall time with one launch on
// the same serve; it reports the memory (PSS) each session adds.
func BenchmarkParallelSessions(b *testing.B) {
	const n = 4
	ws := walletWorkspace(b)
	p := startServe(b, ws)
	hs := make([]*client.Handle, n)
	for i := range hs {
		hs[i] = p.connectAs(b, fmt.Sprintf("bench-%d", i))
	}
	launch := func(h *client.Handle) error {
		_, err := h.CallEnvelope(context.Background(), "mm_launch", map[string]any{"stateMode": "default"})
		return err
	}
	cleanup := func(hs []*client.Handle) {
		for _, h := range hs {
			if _, err := h.CallEnvelope(context.Background(), "mm_cleanup", nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	var one, all []time.Duration
	var perSession float64
	for i := 0; i < b.N; i++ {
		base := pssKB(p.Cmd.Process.Pid)
		start := time.Now()
		if err := launch(hs[0]); err != nil {
			b.Fatal(err)
		}
		one = append(one, time.Since(start))
		cleanup(hs[:1])

		start = time.Now()
		var wg sync.WaitGroup
		errs := make([]error, n)
		for j, h := range hs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[j] = launch(h) }()
		}
		wg.Wait()
		all = append(all, time.Since(start))
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		perSession = float64(pssKB(p.Cmd.Process.Pid)-base) / n / 1024
		cleanup(hs)
	}
	b.ReportMetric(median(one), "one-launch-ms")
	b.ReportMetric(median(all), "four-launches-ms")
	b.ReportMetric(median(all)/median(one), "x-one")
	b.ReportMetric(perSession, "MB/session")
	p.Stop(b, syscall.SIGTERM)
}

// pssKB is the proportional memory (PSS: pages shared between processes
// counted once in all) of pid and every process under it, in kB.
func pssKB(pid int) int {
	total := 0
	for _, p := range append(descendants(pid), pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
				kb, _ := strconv.Atoi(f[1])
				total += kb
			}
		}
	}
	return total
}
