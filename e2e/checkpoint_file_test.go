package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The set-up a checkpoint saves (checkpointSetUp) and a branch from it,
// as flow steps.
const (
	flowSetUpSteps = `  - tool: mm_navigate
    args: {screen: url, url: "%s"}
  - tool: mm_click
    args: {testId: connect}
  - tool: mm_wait_for_notification
    args: {timeoutMs: 15000}
  - tool: mm_click
    args: {testId: page-container-footer-next}
  - tool: mm_wait_for
    args: {selector: "[data-testid=page-container-footer-next]:not([disabled])"}
  - tool: mm_click
    args: {testId: page-container-footer-next}
  - tool: mm_switch_to_tab
    args: {role: dapp}
  - tool: mm_wait_for
    args: {selector: "[data-testid=account]:not(:empty)"}
  - tool: mm_seed_contract
    args: {contractName: hst}
  - tool: mm_click
    args: {testId: send}
  - tool: mm_wait_for_notification
    args: {timeoutMs: 15000}
  - tool: mm_click
    args: {testId: page-container-footer-next}
  - tool: mm_switch_to_tab
    args: {role: dapp}
  - tool: mm_wait_for
    args: {selector: "[data-testid=tx]:not(:empty)"}
`
	flowBranchSteps = `  - tool: mm_switch_to_tab
    args: {role: dapp}
  - tool: mm_click
    args: {testId: connect}
  - tool: mm_wait_for
    args: {selector: "[data-testid=account]:not(:empty)"}
  - tool: mm_click
    args: {testId: send}
  - tool: mm_wait_for_notification
    args: {timeoutMs: 15000}
  - tool: mm_click
    args: {testId: page-container-footer-next}
  - tool: mm_switch_to_tab
    args: {role: dapp}
expect:
  timeoutMs: 15000
  transactionMined:
    hashFromTestId: tx
`
)

// TestCheckpointFileFlow: a checkpoint (dapp connected, hst deployed,
// 1 ETH sent) exported with `mmcp checkpoint export` is one small file
// with no secret in clear; a flow that starts from it (launch:
// {fromCheckpoint: file} beside the flow) passes `mmcp test` with only
// its branch's steps (the dapp is connected from the start: its connect
// asks nothing); it is timed beside the same flow replaying its
// set-up, both run in one `mmcp test` (the times are logged here and
// reported by BenchmarkFlowFromCheckpoint: a timing is no test).
func TestCheckpointFileFlow(t *testing.T) {
	fork, replay := checkpointFileFlows(t)
	t.Logf("flow from the checkpoint file %d ms (launch %d ms); the same flow replaying its set-up %d ms (launch %d ms); ratio %.2f",
		fork[0], fork[1], replay[0], replay[1], float64(replay[0])/float64(fork[0]))
}

// BenchmarkFlowFromCheckpoint: the flow that starts from a checkpoint
// file beside the same flow replaying its set-up, in one `mmcp test`.
func BenchmarkFlowFromCheckpoint(b *testing.B) {
	for i := 0; i < b.N; i++ {
		fork, replay := checkpointFileFlows(b)
		b.ReportMetric(float64(fork[0]), "fork-flow-ms")
		b.ReportMetric(float64(replay[0]), "replay-flow-ms")
		b.ReportMetric(float64(replay[0])/float64(fork[0]), "replay/fork")
	}
}

// checkpointFileFlows saves and exports checkpoint A, then runs the two
// flows in one `mmcp test`; both must pass. It answers each flow's
// duration and launch time in ms.
func checkpointFileFlows(t testing.TB) (fork, replay [2]int64) {
	t.Helper()
	h, ws := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	dapp := dappServer(t)
	checkpointSetUp(t, h, dapp.URL)
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"}))
	must(t, h.Call("mm_cleanup", map[string]any{}))

	dir := filepath.Join(t.TempDir(), "flows")
	file := filepath.Join(dir, "a.checkpoint.json")
	r := mmcpCLI(t, ws, "checkpoint", "export", "A", "--out", file)
	if r.Code != 0 {
		t.Fatalf("checkpoint export: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	t.Log(strings.TrimSpace(r.Stdout))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 256<<10 {
		t.Fatalf("the checkpoint file is %d bytes, want at most 256 KiB to commit", len(b))
	}
	for _, secret := range []string{fixturePassword, fixtureSRP} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("the checkpoint file holds a secret in clear")
		}
	}

	for name, doc := range map[string]string{
		"1-replay.flow.yaml": "name: replayed set-up then a send\nsteps:\n" + fmt.Sprintf(flowSetUpSteps, dapp.URL) + flowBranchSteps,
		"2-fork.flow.yaml":   "name: from checkpoint A then a send\nlaunch:\n  fromCheckpoint: a.checkpoint.json\nsteps:\n" + flowBranchSteps,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	js := filepath.Join(t.TempDir(), "summary.json")
	r = mmcpRun(t, nil, "--repo", ws, "--headless", "test", "--parallel", "1", "--json", js, dir)
	t.Logf("mmcp test:\n%s", r.Stdout)
	if r.Code != 0 {
		t.Fatalf("mmcp test: exit %d\n%s", r.Code, tail(r.Stderr, 30))
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Flows []struct {
			Name, Status         string
			DurationMs, LaunchMs int64
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Flows) != 2 {
		t.Fatalf("summary %s: %v", raw, err)
	}
	ms := map[string][2]int64{}
	for _, f := range s.Flows {
		if f.Status != "passed" {
			t.Fatalf("flow %q %s", f.Name, f.Status)
		}
		ms[f.Name] = [2]int64{f.DurationMs, f.LaunchMs}
	}
	return ms["from checkpoint A then a send"], ms["replayed set-up then a send"]
}
