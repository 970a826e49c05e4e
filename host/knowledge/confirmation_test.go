package knowledge

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestRecordKeepsConfirmationBlock: a confirmation step's record carries
// its block (valid StepRecord v1: in tool.input), masked of a recovery
// phrase and a private key the dapp put in its message, with the
// transaction's hash kept, labelled with kind, outcome and mismatches;
// reading the session gives the block back and the input without it.
func TestRecordKeepsConfirmationBlock(t *testing.T) {
	s := newStore(t)
	const (
		phrase = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
		key    = "0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d"
		hash   = "0x8c9d2bd1c2b4d1c8f3e0a6c2b1e7a5d4c3b2a190817263544536271809a0b1c2"
	)
	r := step("mm-confirm-1", t0, "mm_confirm", "unknown", "", true)
	r.Tool.Input = map[string]any{"action": "approve"}
	r.Confirmation = map[string]any{
		"kind": "transfer", "origin": "http://127.0.0.1:8080", "outcome": "approved",
		"request":     map[string]any{"kind": "transfer", "to": "0x09781764C08DE8CA82E156bbf156A3ca217C7950", "value": "1", "message": key},
		"shown":       map[string]any{"to": "0x000000000000000000000000000000000000dEaD", "message": phrase},
		"mismatches":  []any{map[string]any{"field": "to", "requested": "0x0978", "shown": "0xdead"}},
		"transaction": map[string]any{"hash": hash, "status": 1},
	}
	p := mustRecord(t, s, r)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if strings.Contains(text, "spread raise") || strings.Contains(text, key[2:]) {
		t.Fatalf("a secret reached the record:\n%s", text)
	}
	if !strings.Contains(text, hash) || !strings.Contains(text, `"confirmation"`) || !strings.Contains(text, "0x09781764C08DE8CA82E156bbf156A3ca217C7950") {
		t.Fatalf("the block is not kept:\n%s", text)
	}
	_, steps, err := s.SessionSteps(context.Background(), "mm-confirm-1")
	if err != nil || len(steps) != 1 {
		t.Fatalf("steps %v %v", steps, err)
	}
	got := steps[0]
	for _, l := range []string{"confirmation-kind:transfer", "confirmation-outcome:approved", "confirmation-mismatch:to"} {
		if !slices.Contains(got.Labels, l) {
			t.Errorf("label %q missing: %v", l, got.Labels)
		}
	}
	block, _ := got.Confirmation.(map[string]any)
	if block["outcome"] != "approved" || block["kind"] != "transfer" {
		t.Fatalf("block read back %v", got.Confirmation)
	}
	if _, ok := got.Tool.Input["confirmation"]; ok || got.Tool.Input["action"] != "approve" {
		t.Fatalf("input read back %v", got.Tool.Input)
	}
}

// TestRecordCutsLargeConfirmationBlock: a block too large for a quarter
// of the record's cap keeps its kind, outcome and mismatches.
func TestRecordCutsLargeConfirmationBlock(t *testing.T) {
	s := newStore(t)
	s.SetMaxRecordBytes(8192)
	r := step("mm-confirm-2", t0, "mm_confirmation", "unknown", "", true)
	r.Confirmation = map[string]any{"kind": "typed_data_v4", "outcome": "pending", "mismatches": []any{},
		"request": map[string]any{"typedData": strings.Repeat("x", 5000)}, "shown": map[string]any{"message": "hi"}}
	b, err := os.ReadFile(mustRecord(t, s, r))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "xxxx") || !strings.Contains(string(b), `"omitted": "too large"`) || !strings.Contains(string(b), `"typed_data_v4"`) {
		t.Fatalf("record:\n%s", b)
	}
}
