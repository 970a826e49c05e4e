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
// asks nothing), and takes less time than the same flow replaying its
// set-up, both run in one `mmcp test`.
func TestCheckpointFileFlow(t *testing.T) {
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
	replay, fork := ms["replayed set-up then a send"], ms["from checkpoint A then a send"]
	t.Logf("flow from the checkpoint file %d ms (launch %d ms); the same flow replaying its set-up %d ms (launch %d ms); ratio %.2f",
		fork[0], fork[1], replay[0], replay[1], float64(replay[0])/float64(fork[0]))
	if fork[0] >= replay[0] {
		t.Fatalf("the flow from the checkpoint took %d ms, the replaying one %d ms", fork[0], replay[0])
	}
}
