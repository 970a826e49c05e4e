package e2e

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// launchStepLine matches the host's log line of a finished launch step.
var launchStepLine = regexp.MustCompile(`launch: step=([a-z]+) ms=([0-9]+)`)

// BenchmarkLaunchSplit launches the test wallet in default mode (unlocked
// home) and reports where the launch goes, as the host logs each step:
// the chain, the fixture server, Chrome (start, connect, home page), the
// extension's first recognized screen, the unlock; medians in ms, and the
// whole mm_launch call.
//
//	MMCP_BIN=$PWD/bin flock /tmp/mmcp-e2e.lock go test ./e2e -run '^$' -bench BenchmarkLaunchSplit -benchtime 5x
//
// MMCP_BENCH_REPO and MMCP_BENCH_EXTENSION launch another workspace and
// extension instead (a MetaMask checkout and its unpacked test build: the
// checkout's fixture builder makes the state).
func BenchmarkLaunchSplit(b *testing.B) {
	ws, args := os.Getenv("MMCP_BENCH_REPO"), []string{"--headless"}
	if ws == "" {
		ws = walletWorkspace(b)
	}
	if ext := os.Getenv("MMCP_BENCH_EXTENSION"); ext != "" {
		args = append(args, "--extension", ext)
	}
	h := startHost(b, HostOptions{Repo: ws, Args: args})
	steps := map[string][]time.Duration{}
	var total []time.Duration
	for i := 0; i < b.N; i++ {
		from := len(h.Stderr.String())
		start := time.Now()
		launch(b, h, map[string]any{"stateMode": "default"})
		total = append(total, time.Since(start))
		for _, m := range launchStepLine.FindAllStringSubmatch(h.Stderr.String()[from:], -1) {
			ms, _ := strconv.Atoi(m[2])
			steps[m[1]] = append(steps[m[1]], time.Duration(ms)*time.Millisecond)
		}
		must(b, h.Call("mm_cleanup", map[string]any{}))
	}
	for _, s := range []string{"chain", "fixture", "mocks", "browser", "extension", "unlock"} {
		if ds := steps[s]; len(ds) > 0 {
			b.ReportMetric(median(ds), s+"-ms")
		}
	}
	b.ReportMetric(median(total), "launch-ms")
	if len(steps) == 0 {
		b.Fatalf("no launch step in the host's log: %s", tail(h.Stderr.String(), 20))
	}
}
