package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkStandbyLaunch: with --standby 1, a default mm_launch as the
// MCP client sees it (a ready standby session taken: the health probe,
// the state read, session.json), against a plain launch (ports named, so
// launched as before) on the same host in the same run; each measured
// with no launch ahead in flight (the next standby session ready first).
//
//	flock /tmp/mmcp-e2e.lock go test ./e2e -run '^$' -bench BenchmarkStandbyLaunch -benchtime 10x
func BenchmarkStandbyLaunch(b *testing.B) {
	h, _ := walletHost(b, "--standby", "1")
	var taken, plain []time.Duration
	ready := 1
	for b.Loop() {
		waitStandby(b, h, ready)
		start := time.Now()
		env := must(b, h.Call("mm_launch", map[string]any{}))
		taken = append(taken, time.Since(start))
		var res struct{ Standby bool }
		env.Decode(b, &res)
		if !res.Standby {
			b.Fatal("the launch did not take the standby session")
		}
		must(b, h.Call("mm_cleanup", map[string]any{}))
		ready++
		waitStandby(b, h, ready) // the one launched behind the taken one
		start = time.Now()
		launchFree(b, h, map[string]any{})
		plain = append(plain, time.Since(start))
		must(b, h.Call("mm_cleanup", map[string]any{}))
	}
	b.ReportMetric(median(taken), "standby-launch-ms")
	b.ReportMetric(median(plain), "plain-launch-ms")
	b.ReportMetric(median(plain)/median(taken), "x-faster")
}

// BenchmarkFlowSuiteStandby runs the 8-flow suite (e2e/testdata/flows,
// the failing flow included) with `mmcp test` at --parallel 1 and 4,
// each without and with --standby 1, in turn in one run, and reports the
// four wall times and the ratios.
//
//	flock /tmp/mmcp-e2e.lock go test ./e2e -run '^$' -bench BenchmarkFlowSuiteStandby -benchtime 2x
func BenchmarkFlowSuiteStandby(b *testing.B) {
	ws := walletWorkspace(b)
	srv := flowDappServer(b)
	env := []string{"FLOW_DAPP_URL=" + srv.URL}
	dir := b.TempDir()
	run := func(parallel, standby int) time.Duration {
		js := filepath.Join(dir, fmt.Sprintf("p%d-s%d.json", parallel, standby))
		start := time.Now()
		r := mmcpRun(b, env, "--repo", ws, "--headless", "--standby", fmt.Sprint(standby), "test", "--parallel", fmt.Sprint(parallel), "--json", js, flowSuiteDir())
		wall := time.Since(start)
		if r.Code != 1 { // the broken flow fails, the others pass
			b.Fatalf("--parallel %d --standby %d: exit %d\n%s\n%s", parallel, standby, r.Code, r.Stdout, tail(r.Stderr, 20))
		}
		var ft flowTimes
		raw, err := os.ReadFile(js)
		if err == nil {
			err = json.Unmarshal(raw, &ft)
		}
		if err != nil || len(ft.Flows) != 8 {
			b.Fatalf("summary: %v", err)
		}
		return wall
	}
	walls := map[string][]time.Duration{}
	for b.Loop() {
		for _, c := range []struct{ p, s int }{{1, 0}, {1, 1}, {4, 0}, {4, 1}} {
			k := fmt.Sprintf("p%d-s%d", c.p, c.s)
			walls[k] = append(walls[k], run(c.p, c.s))
		}
	}
	for _, k := range []string{"p1-s0", "p1-s1", "p4-s0", "p4-s1"} {
		b.ReportMetric(median(walls[k])/1000, k+"-wall-s")
	}
	b.ReportMetric(median(walls["p1-s0"])/median(walls["p1-s1"]), "p1-standby-x")
	b.ReportMetric(median(walls["p4-s0"])/median(walls["p4-s1"]), "p4-standby-x")
	b.ReportMetric(median(walls["p1-s0"])/median(walls["p4-s0"]), "p1/p4")
	b.ReportMetric(median(walls["p1-s1"])/median(walls["p4-s1"]), "p1/p4-standby")
}
