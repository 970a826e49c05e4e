package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/plugins/fixture"
	"github.com/mmcp-dev/mmcp/sdk"
)

// nextReleaseWallet is a test wallet workspace on the wallet's "next
// release": its default state carries the fixture setting
// TestWalletSettings.nextRelease, which renames the transaction popup's
// confirm button (page-container-footer-next: confirm-footer-button, as
// MetaMask 12 did) and moves it out of the footer into an action bar of
// its own; the connect popup keeps its buttons. The workspace is a
// checkout whose end-to-end fixture builder serves that state
// (default-fixture.json beside the fake builder), so every default launch
// in it, mmcp test's and mm_flow_run's, gets the setting and the flow
// stays the one recorded on the test wallet.
func nextReleaseWallet(t *testing.T) string {
	t.Helper()
	ws := fakeCheckout(t, "ok")
	base, err := fixture.New(nil).DefaultState(context.Background(), sdk.DefaultStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var fx map[string]any
	if err := json.Unmarshal(base.State, &fx); err != nil {
		t.Fatal(err)
	}
	fx["data"].(map[string]any)["TestWalletSettings"] = map[string]any{"nextRelease": true}
	b, err := json.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "test", "e2e", "fixtures", "default-fixture.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// driftAnswer is mm_flow_run's and mm_flow_resume's answer.
type driftAnswer struct {
	Verdict string `json:"verdict"`
	Stopped *struct {
		Index     int    `json:"index"`
		Tool      string `json:"tool"`
		Error     string `json:"error"`
		ErrorCode string `json:"errorCode"`
	} `json:"stopped"`
	Screen       json.RawMessage `json:"screen"`
	Hints        json.RawMessage `json:"hints"`
	Handle       string          `json:"handle"`
	Failed       []string        `json:"failed"`
	RepairedPath string          `json:"repairedPath"`
	Diff         string          `json:"diff"`
	Replacement  []struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"replacement"`
}

func callDrift(t *testing.T, h *Host, tool string, args map[string]any) driftAnswer {
	t.Helper()
	env := h.Call(tool, args)
	if !env.OK {
		t.Fatalf("%s: %+v", tool, env.Error)
	}
	var a driftAnswer
	if err := json.Unmarshal(env.Result, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFlowDriftLoop: the suite's send flow, recorded on the test wallet
// and expecting its one transfer (expect.transactions), fails at its
// transaction confirm on the next release (renamed and moved button):
// `mmcp test --handoff` fails there and writes the bundle; mm_flow_run
// {handoff} stops at that step with the screen and hints; an agent clicks
// the new testid and calls mm_flow_resume: the repaired flow is written
// beside the original, which is unchanged, and passes `mmcp test` on the
// changed wallet; the run's report counts the repair. A "repair" that
// rejects where the flow approved (by the button's old place) fails
// expect.transactions: a regression, and nothing is written.
func TestFlowDriftLoop(t *testing.T) {
	ws := nextReleaseWallet(t)
	srv := flowDappServer(t)
	env := []string{"FLOW_DAPP_URL=" + srv.URL}
	dir := t.TempDir()
	orig, err := os.ReadFile(filepath.Join(flowSuiteDir(), "06-dapp-send.flow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The flow checks what the wallet sent: one transfer of 1 ETH, mined.
	i := strings.Index(string(orig), "expect:")
	if i < 0 {
		t.Fatal("the send flow has no expect")
	}
	orig = append(orig[:i:i], `expect:
  timeoutMs: 15000
  transactions:
    - {kind: transfer, to: "0x09781764C08DE8CA82E156bbf156A3ca217C7950", value: "1", status: 1}
`...)
	flow := filepath.Join(dir, "send.flow.yaml")
	if err := os.WriteFile(flow, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	const confirmStep = 11 // the transaction popup's confirm

	handoff, js := filepath.Join(dir, "handoff"), filepath.Join(dir, "summary.json")
	r := mmcpRun(t, env, "--repo", ws, "--headless", "test", "--handoff", handoff, "--json", js, flow)
	if r.Code != 1 || !strings.Contains(r.Stdout, "1 replayed: 0 passed, 1 failed, 0 flaky, 1 handed off") {
		t.Fatalf("mmcp test on the next release: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}
	s := readSummary(t, js)
	if len(s.Flows) != 1 || !strings.Contains(s.Flows[0].Error, "step 11 mm_click") {
		t.Fatalf("summary %+v", s.Flows)
	}
	bundles, _ := filepath.Glob(filepath.Join(handoff, "*", "handoff.json"))
	if len(bundles) != 1 {
		t.Fatalf("bundles %v", bundles)
	}

	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}, Env: env})
	t.Cleanup(func() { h.Call("mm_cleanup", map[string]any{}) })
	a := callDrift(t, h, "mm_flow_run", map[string]any{"handoff": filepath.Dir(bundles[0])})
	if a.Verdict != "stopped" || a.Stopped == nil || a.Stopped.Index != confirmStep || a.Stopped.ErrorCode != "MM_TARGET_NOT_FOUND" {
		t.Fatalf("mm_flow_run {handoff}: %+v", a)
	}
	if !strings.Contains(string(a.Screen), "confirm-footer-button") || a.Handle == "" {
		t.Fatalf("stop: screen %.400s handle %q", a.Screen, a.Handle)
	}
	if !strings.Contains(string(a.Hints), "relatedSessions") {
		t.Errorf("no hints of the mmcp test session on this screen: %.400s", a.Hints)
	}
	// The agent does the step by the new testid, then resumes.
	if env := h.Call("mm_click", map[string]any{"testId": "confirm-footer-button"}); !env.OK {
		t.Fatalf("agent's click: %+v", env.Error)
	}
	a = callDrift(t, h, "mm_flow_resume", map[string]any{"handle": a.Handle})
	if a.Verdict != "repaired" || a.RepairedPath != filepath.Join(dir, "send.repaired.flow.yaml") {
		t.Fatalf("mm_flow_resume: %+v", a)
	}
	if !strings.Contains(a.Diff, "+ ") || !strings.Contains(a.Diff, "confirm-footer-button") {
		t.Errorf("diff:\n%s", a.Diff)
	}
	if b, _ := os.ReadFile(flow); string(b) != string(orig) {
		t.Fatal("the original flow changed")
	}
	// The run's report counts the repair of the flow it handed off.
	r = mmcpRun(t, nil, "report", "--html", filepath.Join(dir, "html"), js)
	if want := "1 replayed: 0 passed, 1 failed, 0 flaky, 1 handed off, 1 repaired, 0 regression"; !strings.Contains(r.Stdout, want) {
		t.Fatalf("mmcp report: exit %d, want %q\n%s\n%s", r.Code, want, r.Stdout, r.Stderr)
	}
	h.Call("mm_cleanup", map[string]any{})
	r = mmcpRun(t, env, "--repo", ws, "--headless", "test", a.RepairedPath)
	if r.Code != 0 {
		t.Fatalf("the repaired flow on the next release: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}
	// mm_flow_run in a session whose account sent a transaction before:
	// expect.transactions counts the flow's own only.
	launchFree(t, h, map[string]any{})
	var before string
	ethRPC(t, chainURL(t, h), "eth_sendTransaction", &before, map[string]any{"from": account0, "to": account0, "value": "0x1"})
	// Anvil mines right after it answers the send: the flow starts once
	// that transaction is in a block, so it was sent before the flow.
	receipt(t, chainURL(t, h), before)
	if a := callDrift(t, h, "mm_flow_run", map[string]any{"path": a.RepairedPath}); a.Verdict != "passed" {
		t.Fatalf("the repaired flow in a session that sent before: %+v", a)
	}
	h.Call("mm_cleanup", map[string]any{})

	// A "repair" that rejects the transaction: regression, nothing written.
	if err := os.Remove(a.RepairedPath); err != nil {
		t.Fatal(err)
	}
	a = callDrift(t, h, "mm_flow_run", map[string]any{"path": flow})
	if a.Verdict != "stopped" || a.Stopped.Index != confirmStep {
		t.Fatalf("mm_flow_run {path}: %+v", a)
	}
	// The agent "repairs" by the button's old place, the footer's last
	// button: the button moved, so that is Reject now.
	if env := h.Call("mm_click", map[string]any{"selector": ".footer > button:last-child"}); !env.OK {
		t.Fatalf("agent's click by the old place: %+v", env.Error)
	}
	a = callDrift(t, h, "mm_flow_resume", map[string]any{"handle": a.Handle})
	if a.Verdict != "regression" || len(a.Failed) != 1 || !strings.Contains(a.Failed[0], "transactions") || a.RepairedPath != "" {
		t.Fatalf("a rejecting repair: %+v", a)
	}
	if _, err := os.Stat(filepath.Join(dir, "send.repaired.flow.yaml")); !os.IsNotExist(err) {
		t.Fatalf("a regression wrote the repaired flow: %v", err)
	}
}

// TestFlowToolsOverHTTP: over mmcp serve --http, mm_flow_run's path and
// handoff stay inside the host's workspace: a file outside it, or reached
// through a symlink leading out, answers MM_PATH_OUTSIDE_WORKSPACE, and a
// relative path is the workspace's (the file is nowhere else). The handle
// of a's stopped flow is a's: b's mm_flow_resume of it answers
// MM_HANDLE_NOT_OWNED.
func TestFlowToolsOverHTTP(t *testing.T) {
	ws := walletWorkspace(t)
	out := t.TempDir()
	const flow = `name: stops at once
steps:
  - tool: mm_click
    args: {testId: not-there, timeoutMs: 500}
`
	for _, dir := range []string{filepath.Join(ws, "flows"), out} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stop.flow.yaml"), []byte(flow), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, ws)
	a, b := p.connectAs(t, "agent-a"), p.connectAs(t, "agent-b")
	t.Cleanup(func() { _, _ = a.CallEnvelope(context.Background(), "mm_cleanup", nil) })
	for _, args := range []map[string]any{
		{"path": filepath.Join(out, "stop.flow.yaml")},
		{"path": "elsewhere/stop.flow.yaml"},
		{"handoff": out},
	} {
		_, err := a.CallEnvelope(context.Background(), "mm_flow_run", args)
		var mmErr *sdk.Error
		if !errors.As(err, &mmErr) || mmErr.Code != sdk.CodePathOutsideWorkspace {
			t.Fatalf("mm_flow_run %v: %v, want %s", args, err, sdk.CodePathOutsideWorkspace)
		}
	}
	var stop driftAnswer
	call(t, a, "mm_flow_run", map[string]any{"path": "flows/stop.flow.yaml"}, &stop)
	if stop.Verdict != "stopped" || stop.Handle == "" {
		t.Fatalf("a's run: %+v", stop)
	}
	_, err := b.CallEnvelope(context.Background(), "mm_flow_resume", map[string]any{"handle": stop.Handle})
	var mmErr *sdk.Error
	if !errors.As(err, &mmErr) || mmErr.Code != sdk.CodeHandleNotOwned {
		t.Fatalf("b resumes a's handle: %v, want %s", err, sdk.CodeHandleNotOwned)
	}
}
