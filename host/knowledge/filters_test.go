package knowledge

import (
	"context"
	"testing"
	"time"
)

// Spec 004: the session filters hold for every scope, and sinceHours
// counts from the session's createdAt, not from its last step.
func TestFiltersForEveryScope(t *testing.T) {
	s := newStore(t)
	mustSession(t, s, "mm-send-1", t0.Add(-2*time.Hour), "send", []string{"send"}, []string{"smoke"}, "main")
	mustRecord(t, s, step("mm-send-1", t0.Add(-time.Hour), "mm_click", "home", "eth-overview-send", true))
	mustSession(t, s, "mm-old-1", t0.Add(-10*time.Hour), "old", []string{"swap"}, nil, "dev")
	mustRecord(t, s, step("mm-old-1", t0.Add(-time.Minute), "mm_click", "home", "swap-button", true))

	count := func(scope Scope, current string, f *Filters) int {
		t.Helper()
		res, err := s.Last(context.Background(), current, LastQuery{N: 10, Scope: scope, Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Steps)
	}
	send := Scope{Kind: ScopeSession, SessionID: "mm-send-1"}
	cur := Scope{Kind: ScopeCurrent}
	for name, tc := range map[string]struct {
		scope   Scope
		current string
		f       *Filters
		want    int
	}{
		"session, matching flowTag":   {send, "", &Filters{FlowTag: "send"}, 1},
		"session, other flowTag":      {send, "", &Filters{FlowTag: "swap"}, 0},
		"session, other tag":          {send, "", &Filters{Tag: "nightly"}, 0},
		"session, other branch":       {send, "", &Filters{GitBranch: "dev"}, 0},
		"current, matching branch":    {cur, "mm-send-1", &Filters{GitBranch: "main"}, 1},
		"current, other flowTag":      {cur, "mm-send-1", &Filters{FlowTag: "swap"}, 0},
		"current, created in window":  {cur, "mm-send-1", &Filters{SinceHours: 3}, 1},
		"old session, recent step":    {Scope{Kind: ScopeSession, SessionID: "mm-old-1"}, "", &Filters{SinceHours: 5}, 0},
		"all, created in window":      {AllScope, "", &Filters{SinceHours: 5}, 1},
		"all, old one in a wide view": {AllScope, "", &Filters{SinceHours: 11}, 2},
		"all, one excluded":           {AllScope, "", &Filters{Exclude: []string{"mm-send-1"}}, 1},
		"current, excluded":           {cur, "mm-send-1", &Filters{Exclude: []string{"mm-send-1"}}, 0},
	} {
		if got := count(tc.scope, tc.current, tc.f); got != tc.want {
			t.Errorf("%s: %d steps, want %d", name, got, tc.want)
		}
	}
}
