package flows

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/schemas"
)

const confirmFlow = `name: send
steps:
  - tool: mm_click
    args: {testId: tx}
  - confirm: {action: approve, expect: {to: "0x09781764C08DE8CA82E156bbf156A3ca217C7950", value: "1"}}
expect:
  transactions:
    - {kind: transfer, to: "0x09781764C08DE8CA82E156bbf156A3ca217C7950", value: "1", status: 1}
    - kind: token_transfer
      events: [{name: Transfer, standard: erc20, args: {value: 5}}]
`

// TestConfirmStepCallsMmConfirm: a confirm step is mm_confirm with its
// action and expect; expect.transactions decodes.
func TestConfirmStepCallsMmConfirm(t *testing.T) {
	f := mustParse(t, confirmFlow)
	st := f.Steps[1]
	if st.Confirm == nil || st.Confirm.Action != "approve" || st.ToolName() != ToolConfirm || st.Tool != "" {
		t.Fatalf("step %+v", st)
	}
	s := &fakeSession{}
	if err := runStep(context.Background(), s, st); err != nil {
		t.Fatal(err)
	}
	if got := s.called(`mm_confirm {"action":"approve","expect":{"to":"0x09781764C08DE8CA82E156bbf156A3ca217C7950","value":"1"}}`); got != 1 {
		t.Fatalf("calls %v", s.calls)
	}
	if tx := f.Expect.Transactions; len(tx) != 2 || *tx[0].Status != 1 || tx[1].Events[0].Args["value"] != float64(5) {
		t.Fatalf("transactions %+v", tx)
	}
	if err := CheckTools([]*Flow{f}, []string{"mm_click", "mm_confirm"}); err != nil {
		t.Fatal(err)
	}
	if err := CheckTools([]*Flow{f}, []string{"mm_click"}); err == nil || !strings.Contains(err.Error(), `step 2 uses tool "mm_confirm"`) {
		t.Fatalf("check without mm_confirm: %v", err)
	}
}

// TestParseRefusesMalformedConfirm: the file check refuses a malformed
// confirm step or expected transaction before any launch, naming the
// field.
func TestParseRefusesMalformedConfirm(t *testing.T) {
	wantFieldErrors(t, map[string]string{
		"name: x\nsteps: [{confirm: {action: accept}}]\n":                                       "steps.0",
		"name: x\nsteps: [{confirm: {}}]\n":                                                     "steps.0",
		"name: x\nsteps: [{tool: mm_click, confirm: {action: approve}}]\n":                      "steps.0",
		"name: x\nsteps: [{confirm: {action: approve}, args: {testId: x}}]\n":                   "steps.0",
		"name: x\nsteps: [{confirm: {action: approve, expect: {recipent: x}}}]\n":               "steps.0",
		"name: x\nsteps: [{tool: t}]\nexpect: {transactions: [{to: bob}]}\n":                    "expect.transactions.0.to",
		"name: x\nsteps: [{tool: t}]\nexpect: {transactions: [{status: 2}]}\n":                  "expect.transactions.0.status",
		"name: x\nsteps: [{tool: t}]\nexpect: {transactions: [{value: 1}]}\n":                   "expect.transactions.0.value",
		"name: x\nsteps: [{tool: t}]\nexpect: {transactions: [{kind: send}]}\n":                 "expect.transactions.0.kind",
		"name: x\nsteps: [{tool: t}]\nexpect: {transactions: [{events: [{args: {a: 1}}]}]}\n":   "expect.transactions.0.events.0",
		"name: x\nsteps: [{tool: t}]\nexpect: {transactions: [{kind: transfer, gas: 21000}]}\n": "expect.transactions.0",
	})
}

// TestConfirmExpectIsMmConfirms: a confirm step's expect takes exactly
// mm_confirm's expect fields.
func TestConfirmExpectIsMmConfirms(t *testing.T) {
	var tool struct {
		Properties struct {
			Expect struct {
				Properties map[string]any `json:"properties"`
			} `json:"expect"`
		} `json:"properties"`
	}
	var flow struct {
		Defs struct {
			ConfirmExpect struct {
				Properties map[string]any `json:"properties"`
			} `json:"confirmExpect"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemas.Get("confirm"), &tool); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(SchemaJSON, &flow); err != nil {
		t.Fatal(err)
	}
	if len(tool.Properties.Expect.Properties) == 0 || !reflect.DeepEqual(tool.Properties.Expect.Properties, flow.Defs.ConfirmExpect.Properties) {
		t.Fatalf("flow confirm.expect %v\nmm_confirm expect %v", flow.Defs.ConfirmExpect.Properties, tool.Properties.Expect.Properties)
	}
}

// TestTransactionDiff: each field of an expected transaction, and its
// events' arguments, compared with what was sent.
func TestTransactionDiff(t *testing.T) {
	one := 1
	sent := sentTx{D: confirm.Decoded{Kind: confirm.KindTokenTransfer, To: "0x581C3C1A2A4EBDE2A0Df29B5cf4c116E42945947", Value: "",
		Call: &confirm.Call{Function: "transfer"}}, Status: 1,
		Events: []confirm.Event{{Standard: confirm.ERC20, Name: "Transfer", Contract: "0x581C3C1A2A4EBDE2A0Df29B5cf4c116E42945947",
			Args: map[string]any{"to": "0x09781764C08DE8CA82E156bbf156A3ca217C7950", "value": "5"}}}}
	ok := TxSpec{Kind: "token_transfer", To: "0x581c3c1a2a4ebde2a0df29b5cf4c116e42945947", Value: "0", Function: "transfer", Status: &one,
		Events: []EventSpec{{Name: "Transfer", Standard: "erc20", Args: map[string]any{"to": "0x09781764c08de8ca82e156bbf156a3ca217c7950", "value": float64(5)}}}}
	if d := ok.diff(sent); d != "" {
		t.Fatalf("matching spec: %s", d)
	}
	if d := (TxSpec{Kind: "transaction"}).diff(sent); d != "" {
		t.Fatalf("any transaction: %s", d)
	}
	zero := 0
	bad := TxSpec{Kind: "transfer", To: "0x09781764C08DE8CA82E156bbf156A3ca217C7950", Value: "1", Function: "approve", Status: &zero,
		Events: []EventSpec{{Name: "Transfer", Args: map[string]any{"value": "6"}}, {Name: "Approval"}}}
	d := bad.diff(sent)
	for _, want := range []string{"kind is token_transfer, want transfer", "to is 0x581C", "value is 0 ETH, want 1", "function is transfer, want approve", "status is 1, want 0", `no event Transfer{"value":"6"}`, "no event Approval"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff %q lacks %q", d, want)
		}
	}
}

// TestExportPopupAnswersAsConfirm: a session that answered the wallet's
// popup by clicks (a connect's two, a transaction's reject) and with
// mm_confirm exports confirm steps: the waits for the popup dropped, the
// connect one step, mm_confirm's expect kept; a click on the same testid
// outside the popup stays a click, and mm_confirmation is left out.
func TestExportPopupAnswersAsConfirm(t *testing.T) {
	const (
		popup = "chrome-extension://abc/notification.html#connect/1"
		txPop = "chrome-extension://abc/notification.html#confirm-transaction/2"
		dapp  = "http://127.0.0.1:8080/"
		home  = "chrome-extension://abc/home.html#/"
	)
	rec := func(tool string, input map[string]any, testID, url string) knowledge.StepRecord {
		r := knowledge.StepRecord{Tool: knowledge.ToolCall{Name: tool, Input: input}, Outcome: knowledge.Outcome{OK: true},
			Observation: observation.Observation{State: observation.State{IsLoaded: true, CurrentScreen: "unknown", CurrentURL: url}}}
		if testID != "" {
			r.Tool.Target = &knowledge.Target{TestID: testID}
		}
		return r
	}
	click := func(id, url string) knowledge.StepRecord {
		return rec("mm_click", map[string]any{"testId": id}, id, url)
	}
	recs := []knowledge.StepRecord{
		rec("mm_launch", map[string]any{"stateMode": "default"}, "", home),
		rec("mm_navigate", map[string]any{"screen": "url", "url": dapp}, "", dapp),
		click("connect", dapp),
		rec("mm_wait_for_notification", map[string]any{}, "", popup),
		click("page-container-footer-next", popup), // Next: the popup stays
		click("page-container-footer-next", dapp),  // Confirm: it closes
		rec("mm_switch_to_tab", map[string]any{"role": "dapp"}, "", dapp),
		click("tx", dapp),
		rec("mm_switch_to_tab", map[string]any{"role": "notification"}, "", txPop),
		click("page-container-footer-cancel", dapp),
		click("tx", dapp),
		rec("mm_confirmation", map[string]any{}, "", txPop),
		rec("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"value": "1"}}, "", dapp),
		rec("mm_navigate", map[string]any{"screen": "home"}, "", home),
		click("page-container-footer-next", home), // the wallet's own page: a click
	}
	f, err := Export("x", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Steps {
		if s.Confirm != nil {
			b, _ := json.Marshal(s.Confirm)
			got = append(got, "confirm "+string(b))
			continue
		}
		got = append(got, s.Tool+" "+jsonString(s.Args))
	}
	want := []string{
		`mm_navigate {"screen":"url","url":"http://127.0.0.1:8080/"}`,
		`mm_click {"testId":"connect"}`,
		`confirm {"action":"approve"}`,
		`mm_switch_to_tab {"role":"dapp"}`,
		`mm_click {"testId":"tx"}`,
		`confirm {"action":"reject"}`,
		`mm_click {"testId":"tx"}`,
		`confirm {"action":"approve","expect":{"value":"1"}}`,
		`mm_navigate {"screen":"home"}`,
		`mm_click {"testId":"page-container-footer-next"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b, err := f.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(b); err != nil || !strings.Contains(string(b), "confirm:\n      action: approve") {
		t.Fatalf("export does not parse (%v):\n%s", err, b)
	}
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }
