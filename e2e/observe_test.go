package e2e

import (
	"testing"
)

// hasTestID says whether a record's observation lists the testid.
func hasTestID(r stepRecord, id string) bool {
	for _, it := range r.Observation.TestIDs {
		if it["testId"] == id {
			return true
		}
	}
	return false
}

// TestObserveAfterAnswer: on a page of more than 10,000 elements, two
// single clicks in a row each answer before their observation is taken,
// yet each step record holds the full observation of the state right after
// its own click (the first sees the element it added, the second sees it
// gone), read back through the knowledge store.
func TestObserveAfterAnswer(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": hugePage(t).URL}))
	must(t, h.Call("mm_click", map[string]any{"testId": "toggle"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "toggle"}))

	// The knowledge store (the next call on the session) has both clicks.
	var last struct {
		Steps []struct{ Tool, Screen string }
	}
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 2})).Decode(t, &last)
	if len(last.Steps) != 2 || last.Steps[0].Tool != "mm_click" || last.Steps[1].Tool != "mm_click" {
		t.Fatalf("knowledge_last: %+v", last.Steps)
	}
	var clicks []stepRecord
	for _, r := range records(t, ws, sid) {
		if r.Tool.Name == "mm_click" {
			clicks = append(clicks, r)
		}
	}
	if len(clicks) != 2 {
		t.Fatalf("%d click records, want 2", len(clicks))
	}
	for i, r := range clicks {
		if len(r.Observation.TestIDs) == 0 || len(r.Observation.A11y.Nodes) == 0 || r.Observation.State["currentUrl"] == nil {
			t.Fatalf("click %d: not a full observation: %+v", i+1, r.Observation)
		}
	}
	if !hasTestID(clicks[0], "shown") {
		t.Fatalf("the first click's record does not show the element it added: %v", clicks[0].Observation.TestIDs)
	}
	if hasTestID(clicks[1], "shown") {
		t.Fatal("the second click's record still shows the element it removed")
	}
}
