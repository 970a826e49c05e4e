package knowledge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

const (
	testSRP = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	testKey = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
)

// nested is n levels of {"a":[...]} around a string, about 8n bytes.
func nested(n int) any {
	var v any = "x"
	for i := 0; i < n; i++ {
		v = map[string]any{"a": []any{v}}
	}
	return v
}

// TestRecordBounds: a 30 KB deeply nested input, rejected or accepted,
// gives a record under 64 KB that keeps the input's size and shape only.
func TestRecordBounds(t *testing.T) {
	s := newStore(t)
	in := map[string]any{"testId": "send", "deep": nested(4000)}
	b, _ := json.Marshal(in)
	if len(b) < 30<<10 {
		t.Fatalf("input is only %d bytes", len(b))
	}
	for _, ok := range []bool{false, true} {
		r := step("mm-bounds", t0, "mm_click", "home", "", ok)
		r.Tool.Input = in
		if !ok {
			r.Outcome.Error = &OutcomeError{Code: sdk.CodeInvalidInput, Message: "invalid input for mm_click: deep: unknown property deep",
				Details: map[string]any{"field": "deep", "errors": []any{nested(4000)}}}
		}
		p := mustRecord(t, s, r)
		rec, _ := os.ReadFile(p)
		if len(rec) >= DefaultMaxRecordBytes {
			t.Fatalf("ok=%v: record is %d bytes", ok, len(rec))
		}
		var got StepRecord
		json.Unmarshal(rec, &got)
		if got.Tool.Input["bytes"] != float64(len(b)) || got.Tool.Input["_omitted"] == nil {
			t.Errorf("ok=%v: input stored as %v", ok, got.Tool.Input)
		}
	}
	// A huge observation is shortened until the record fits.
	r := step("mm-bounds", t0, "mm_describe_screen", "home", "", true)
	for i := 0; i < 5000; i++ {
		r.Observation.A11y.Nodes = append(r.Observation.A11y.Nodes, a11y("e1", "button", strings.Repeat("n", 40)))
	}
	p := mustRecord(t, s, r)
	if fi, _ := os.Stat(p); fi.Size() >= DefaultMaxRecordBytes {
		t.Fatalf("record with a large tree is %d bytes", fi.Size())
	}
}

// TestRecordSecrets: secrets in the input (at any depth), echoed in the
// error, or shown on screen never reach the file; files are 0600 in 0700
// directories.
func TestRecordSecrets(t *testing.T) {
	s := newStore(t)
	r := step("mm-secret", t0, "mm_seed_contract", "home", "", false)
	r.Tool.Input = map[string]any{"contractName": "hst", "deployerOptions": map[string]any{"fromPrivateKey": testKey},
		"note": "words " + testSRP}
	r.Tool.Withheld = []string{"hunter22"}
	r.Outcome.Error = &OutcomeError{Code: sdk.CodeContractDeployFailed, Message: "bad key " + testKey + " or hunter22",
		Details: map[string]any{"key": testKey[2:]}}
	r.Observation.TestIDs = []observation.TestIDItem{
		{TestID: "shown-words", Tag: "div", Text: "1. spread 2. raise 3. short 4. crane 5. omit 6. tent 7. fringe 8. mandate 9. neglect 10. detail 11. suspect 12. cradle", Visible: true},
		{TestID: "account-private-key", Tag: "div", Text: "ab12", Visible: true},
	}
	r.Observation.A11y.Nodes = []observation.A11yNode{a11y("e1", "text", testSRP)}
	p := mustRecord(t, s, r)
	b, _ := os.ReadFile(p)
	for _, sec := range []string{testKey[2:], "spread", "cradle", "hunter22", "ab12"} {
		if strings.Contains(string(b), sec) {
			t.Errorf("%q stored:\n%s", sec, b)
		}
	}
	if !strings.Contains(string(b), `"contractName": "hst"`) {
		t.Errorf("harmless input lost:\n%s", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", fi.Mode().Perm())
	}
	for d := filepath.Dir(p); d != filepath.Dir(s.Root()); d = filepath.Dir(d) {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v", d, fi.Mode().Perm())
		}
	}
}

// TestRecordLeavesTheCallersObservation: masking for the record never
// changes the observation the caller holds (it may be the tool's answer).
func TestRecordLeavesTheCallersObservation(t *testing.T) {
	s := newStore(t)
	r := step("mm-answer", t0, "mm_list_testids", "home", "", true)
	r.Observation.TestIDs = []observation.TestIDItem{{TestID: "tx", Tag: "span", Text: testKey, Visible: true}}
	r.Observation.A11y.Nodes = []observation.A11yNode{a11y("e1", "text", testKey)}
	answer := r.Observation
	p := mustRecord(t, s, r)
	if answer.TestIDs[0].Text != testKey || answer.A11y.Nodes[0].Name != testKey {
		t.Fatalf("the caller's observation was masked: %+v", answer)
	}
	if b, _ := os.ReadFile(p); strings.Contains(string(b), testKey[2:]) {
		t.Fatalf("the record holds the key:\n%s", b)
	}
}
