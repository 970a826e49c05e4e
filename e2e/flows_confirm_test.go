package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hstAddress is where a default launch's seeding puts hst (the deployer's
// first contract on a fresh chain).
const hstAddress = "0x581c3c1a2a4ebde2a0df29b5cf4c116e42945947"

// confirmFlow is a flow with confirm steps (a connect, a 1 ETH send, an
// ERC-20 transfer of 5 raw units to recipient, a rejected send) and the
// transactions it expects; sendValue is the first send's expected value.
func confirmFlow(name, sendValue string) string {
	transfer := "0xa9059cbb" + strings.Repeat("0", 24) + strings.ToLower(strings.TrimPrefix(recipient, "0x")) + fmt.Sprintf("%064x", 5)
	return fmt.Sprintf(`name: %s
launch: {stateMode: default, seedContracts: [hst]}
steps:
  - tool: mm_navigate
    args: {screen: url, url: "${FLOW_DAPP_URL}/?to=%[2]s&value=0xde0b6b3a7640000"}
  - tool: mm_click
    args: {testId: connect}
  - confirm: {action: approve, expect: {kind: connect}}
  - tool: mm_click
    args: {testId: tx}
  - confirm: {action: approve, expect: {kind: transfer, to: "%[2]s", value: "1"}}
  - tool: mm_navigate
    args: {screen: url, url: "${FLOW_DAPP_URL}/?to=%[3]s&data=%[4]s"}
  - tool: mm_click
    args: {testId: connect}
  - tool: mm_click
    args: {testId: tx}
  - confirm: {action: approve, expect: {kind: token_transfer, recipient: "%[2]s", amount: "0.0005"}}
  - tool: mm_click
    args: {testId: tx}
  - confirm: {action: reject}
expect:
  transactions:
    - {kind: transfer, to: "%[2]s", value: "%[5]s", status: 1}
    - kind: token_transfer
      to: "%[3]s"
      function: transfer
      status: 1
      events: [{name: Transfer, standard: erc20, args: {to: "%[2]s", value: "5"}}]
`, name, recipient, hstAddress, transfer, sendValue)
}

// TestFlowConfirmSteps: `mmcp test` runs a flow's confirm steps through
// mm_confirm and checks expect.transactions against the chain: the flow
// whose transactions match passes, the one expecting 2 ETH where the
// wallet sent 1 fails naming the value.
func TestFlowConfirmSteps(t *testing.T) {
	ws := walletWorkspace(t)
	srv := confirmDapp(t)
	dir := t.TempDir()
	for name, value := range map[string]string{"confirm-ok": "1", "confirm-wrong-value": "2"} {
		if err := os.WriteFile(filepath.Join(dir, name+".flow.yaml"), []byte(confirmFlow(name, value)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	js := filepath.Join(t.TempDir(), "report.json")
	r := mmcpRun(t, []string{"FLOW_DAPP_URL=" + srv.URL}, "--repo", ws, "--headless", "test", "--json", js, dir)
	sum := readSummary(t, js)
	if r.Code != 1 || sum.Passed != 1 || sum.Failed != 1 {
		t.Fatalf("exit %d summary %+v\n%s\n%s", r.Code, sum, r.Stdout, tail(r.Stderr, 30))
	}
	for _, f := range sum.Flows {
		switch f.Name {
		case "confirm-ok":
			if f.Status != "passed" {
				t.Errorf("confirm-ok: %+v", f)
			}
		case "confirm-wrong-value":
			if f.Status != "failed" || !strings.Contains(f.Error, "transactions: #1 value is 1 ETH, want 2") {
				t.Errorf("confirm-wrong-value: %+v", f)
			}
		}
	}
}

// TestFlowExportConfirm: a session that answered the popup by clicks
// (a connect's two, a send's approval) exports a flow whose confirm steps
// answer them, without the clicks on the popup's buttons, and `mmcp test`
// of it passes.
func TestFlowExportConfirm(t *testing.T) {
	h, ws := walletHost(t)
	srv := confirmDapp(t)
	var launched struct {
		SessionID string `json:"sessionId"`
	}
	must(t, h.Call("mm_launch", map[string]any{"stateMode": "default", "goal": "send by clicks"})).Decode(t, &launched)
	openConfirmDapp(t, h, srv, map[string][]string{"to": {recipient}, "value": {"0xde0b6b3a7640000"}})
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	must(t, h.Call("mm_cleanup", map[string]any{}))

	flow := filepath.Join(t.TempDir(), "exported.flow.yaml")
	r := mmcpRun(t, nil, "--repo", ws, "flow", "export", launched.SessionID, "--out", flow)
	if r.Code != 0 {
		t.Fatalf("export exit %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	b, _ := os.ReadFile(flow)
	t.Logf("exported flow:\n%s", b)
	if n := strings.Count(string(b), "confirm:\n      action: approve"); n != 2 || strings.Contains(string(b), "page-container-footer") || strings.Contains(string(b), "mm_wait_for_notification") {
		t.Fatalf("the export does not answer the popup with two confirm steps (%d):\n%s", n, b)
	}
	r = mmcpRun(t, nil, "--repo", ws, "--headless", "test", flow)
	if r.Code != 0 {
		t.Fatalf("mmcp test of the export: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}
}
