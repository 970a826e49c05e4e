package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// flowTimes is the part of `mmcp test --json` the benchmark reads.
type flowTimes struct {
	DurationMs, HostStartMs int64
	Flows                   []struct {
		Status             string
		DurationMs         int64
		LaunchMs, ExpectMs int64
		Steps              []struct{ DurationMs int64 }
	}
}

// BenchmarkFlowSuite runs the 8-flow suite (e2e/testdata/flows, the
// failing flow included) with `mmcp test --parallel 1` and `--parallel 4`
// in turn, and reports each wall time, their ratio, and where a flow's
// time goes at --parallel 4 (launch, steps, expectations; the rest is
// cleanup and, on the failing flow, its artifacts) and the host's start.
// 400 flows over 50 pods is 8 flows a pod: a pod like this machine (2
// cores) runs its share in about the --parallel 4 wall time.
//
//	flock /tmp/mmcp-e2e.lock go test ./e2e -run '^$' -bench BenchmarkFlowSuite -benchtime 3x
func BenchmarkFlowSuite(b *testing.B) {
	ws := walletWorkspace(b)
	srv := flowDappServer(b)
	env := []string{"FLOW_DAPP_URL=" + srv.URL}
	dir := b.TempDir()
	run := func(parallel int) (time.Duration, flowTimes) {
		js := filepath.Join(dir, fmt.Sprintf("p%d.json", parallel))
		start := time.Now()
		r := mmcpRun(b, env, "--repo", ws, "--headless", "test", "--parallel", fmt.Sprint(parallel), "--json", js, flowSuiteDir())
		wall := time.Since(start)
		if r.Code != 1 { // the broken flow fails, the others pass
			b.Fatalf("--parallel %d: exit %d\n%s\n%s", parallel, r.Code, r.Stdout, tail(r.Stderr, 20))
		}
		var ft flowTimes
		raw, err := os.ReadFile(js)
		if err == nil {
			err = json.Unmarshal(raw, &ft)
		}
		if err != nil {
			b.Fatal(err)
		}
		return wall, ft
	}
	var one, four time.Duration
	var launch, steps, expect, flow, hostStart int64
	var flows int64
	b.ResetTimer()
	for b.Loop() {
		w1, _ := run(1)
		w4, ft := run(4)
		one += w1
		four += w4
		hostStart += ft.HostStartMs
		for _, f := range ft.Flows {
			flows++
			flow += f.DurationMs
			launch += f.LaunchMs
			expect += f.ExpectMs
			for _, s := range f.Steps {
				steps += s.DurationMs
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(one.Seconds()/n, "p1-wall-s")
	b.ReportMetric(four.Seconds()/n, "p4-wall-s")
	b.ReportMetric(one.Seconds()/four.Seconds(), "p1/p4")
	b.ReportMetric(float64(hostStart)/n/1000, "host-start-s")
	per := func(ms int64) float64 { return float64(ms) / float64(flows) / 1000 }
	b.ReportMetric(per(flow), "p4-flow-s")
	b.ReportMetric(per(launch), "p4-launch-s")
	b.ReportMetric(per(steps), "p4-steps-s")
	b.ReportMetric(per(expect), "p4-expect-s")
}
