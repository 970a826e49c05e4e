package knowledge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// priorFixture: two earlier send sessions that opened the send screen from
// home, one swap session, and failures of a stale testid on home.
func priorFixture(t *testing.T) *Store {
	s := newStore(t)
	home := []string{"eth-overview-send", "eth-overview-buy", "account-menu-icon"}
	for i, id := range []string{"mm-send-a", "mm-send-b"} {
		at := t0.Add(-time.Duration(i+1) * time.Hour)
		mustSession(t, s, id, at, "send", []string{"send"}, nil, "")
		mustRecord(t, s, step(id, at, "mm_describe_screen", "home", "", true, home...))
		mustRecord(t, s, step(id, at.Add(1*time.Second), "mm_click", "home", "old-send-button", false, home...))
		mustRecord(t, s, step(id, at.Add(2*time.Second), "mm_click", "unknown", "eth-overview-send", true, "amount-input"))
		mustRecord(t, s, step(id, at.Add(3*time.Second), "mm_type", "unknown", "amount-input", true, "amount-input"))
	}
	at := t0.Add(-30 * time.Minute)
	mustSession(t, s, "mm-swap-a", at, "swap", []string{"swap"}, nil, "")
	mustRecord(t, s, step("mm-swap-a", at, "mm_describe_screen", "home", "", true, home...))
	mustRecord(t, s, step("mm-swap-a", at.Add(time.Second), "mm_click", "home", "eth-overview-buy", true, home...))
	// An old send session outside the 48h window.
	old := t0.Add(-100 * time.Hour)
	mustSession(t, s, "mm-send-old", old, "send", []string{"send"}, nil, "")
	mustRecord(t, s, step("mm-send-old", old, "mm_describe_screen", "home", "", true, home...))
	mustRecord(t, s, step("mm-send-old", old.Add(time.Second), "mm_click", "home", "account-menu-icon", true, home...))
	// The current session.
	mustSession(t, s, "mm-current", t0, "send again", []string{"send"}, nil, "")
	mustRecord(t, s, step("mm-current", t0, "mm_click", "home", "account-menu-icon", true, home...))
	return s
}

func homeQuery() PriorQuery {
	q := PriorQuery{Screen: "home", URL: "chrome-extension://abc/home.html#/"}
	for _, id := range []string{"eth-overview-send", "eth-overview-buy", "account-menu-icon"} {
		q.TestIDs = append(q.TestIDs, observation.TestIDItem{TestID: id, Tag: "button", Visible: true})
	}
	q.A11yNodes = []observation.A11yNode{a11y("e1", "button", "Eth overview send")}
	return q
}

func TestPriorKnowledgeSuggestsWhatWorkedInSameFlow(t *testing.T) {
	s := priorFixture(t)
	pk, err := s.PriorKnowledge(context.Background(), "mm-current", homeQuery())
	if err != nil {
		t.Fatal(err)
	}
	if pk == nil {
		t.Fatal("no prior knowledge")
	}
	if pk.Query.CandidateSessions != 2 || len(pk.Query.UsedFlowTags) != 1 || pk.Query.UsedFlowTags[0] != "send" {
		t.Errorf("query = %+v", pk.Query)
	}
	for _, r := range pk.RelatedSessions {
		if r.SessionID == "mm-current" || r.SessionID == "mm-swap-a" || r.SessionID == "mm-send-old" {
			t.Errorf("related session %s should not be a candidate", r.SessionID)
		}
	}
	if len(pk.SuggestedNextActions) == 0 {
		t.Fatalf("no suggestions: %+v", pk)
	}
	top := pk.SuggestedNextActions[0]
	if top.Action != "click" || top.PreferredTarget.Type != "testId" || top.PreferredTarget.Value != "eth-overview-send" ||
		top.Rationale != "Used 2 times successfully on this screen" || top.Rank != 1 {
		t.Errorf("top suggestion = %+v", top)
	}
	if len(top.FallbackTargets) != 1 {
		t.Errorf("fallback = %+v", top.FallbackTargets)
	}
	for _, sa := range pk.SuggestedNextActions {
		if sa.PreferredTarget.Value == "old-send-button" || sa.PreferredTarget.Value == "eth-overview-buy" {
			t.Errorf("suggested a failed or other-flow target: %+v", sa)
		}
	}
	if len(pk.Avoid) != 1 || pk.Avoid[0].Target.TestID != "old-send-button" || pk.Avoid[0].Frequency != 2 {
		t.Errorf("avoid = %+v", pk.Avoid)
	}
	for _, st := range pk.SimilarSteps {
		if st.SessionID != "mm-send-a" && st.SessionID != "mm-send-b" {
			t.Errorf("similar step from %s", st.SessionID)
		}
		if st.Tool == "mm_describe_screen" || st.Confidence <= 0 || st.Confidence > 1 {
			t.Errorf("similar step %+v", st)
		}
	}
	// The shape is PriorKnowledgeV1.
	b, _ := json.Marshal(pk)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"schemaVersion", "generatedAt", "query", "relatedSessions", "similarSteps", "suggestedNextActions", "avoid"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %s in %s", k, b)
		}
	}
}

func TestPriorKnowledgeWithoutFlowTagsUsesAllRecentSessions(t *testing.T) {
	s := priorFixture(t)
	pk, err := s.PriorKnowledge(context.Background(), "", homeQuery())
	if err != nil || pk == nil {
		t.Fatalf("pk = %+v, %v", pk, err)
	}
	if pk.Query.CandidateSessions != 4 { // send-a, send-b, swap-a, current; not the 100h old one
		t.Errorf("candidate sessions = %d", pk.Query.CandidateSessions)
	}
	found := false
	for _, sa := range pk.SuggestedNextActions {
		found = found || sa.PreferredTarget.Value == "eth-overview-buy"
	}
	if !found {
		t.Errorf("swap session's step not suggested: %+v", pk.SuggestedNextActions)
	}
}

// Another client's running session (Exclude) is no candidate.
func TestPriorKnowledgeExcludes(t *testing.T) {
	s := priorFixture(t)
	q := homeQuery()
	q.Exclude = []string{"mm-swap-a", "mm-current"}
	pk, err := s.PriorKnowledge(context.Background(), "", q)
	if err != nil || pk == nil {
		t.Fatalf("pk = %+v, %v", pk, err)
	}
	if pk.Query.CandidateSessions != 2 { // send-a, send-b
		t.Errorf("candidate sessions = %d, want 2", pk.Query.CandidateSessions)
	}
	for _, r := range pk.RelatedSessions {
		if r.SessionID == "mm-swap-a" || r.SessionID == "mm-current" {
			t.Errorf("excluded session %s is related", r.SessionID)
		}
	}
}

func TestPriorKnowledgeEmpty(t *testing.T) {
	s := newStore(t)
	mustRecord(t, s, step("mm-only-1", t0, "mm_click", "home", "x", true))
	pk, err := s.PriorKnowledge(context.Background(), "mm-only-1", homeQuery())
	if err != nil || pk != nil {
		t.Fatalf("pk = %+v, %v; want nil", pk, err)
	}
}
