package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// fixture: three sessions.
//   - mm-send-old: send flow on branch main, 3 days ago
//   - mm-send-new: send flow on branch feat, 1 hour ago, tag smoke
//   - mm-swap-1:   swap flow, 2 hours ago, no git
func fixture(t *testing.T) *Store {
	t.Helper()
	s := newStore(t)
	old, recent, swap := t0.Add(-72*time.Hour), t0.Add(-time.Hour), t0.Add(-2*time.Hour)
	mustSession(t, s, "mm-send-old", old, "send ETH to a friend", []string{"send"}, nil, "main")
	mustSession(t, s, "mm-send-new", recent, "send ETH again", []string{"send"}, []string{"smoke"}, "feat")
	mustSession(t, s, "mm-swap-1", swap, "swap ETH for DAI", []string{"swap"}, nil, "")
	for i, r := range []StepRecord{
		step("mm-send-old", old, "mm_describe_screen", "home", "", true, "eth-overview-send"),
		step("mm-send-old", old.Add(time.Second), "mm_click", "home", "eth-overview-send", true, "eth-overview-send"),
		step("mm-send-new", recent, "mm_describe_screen", "home", "", true, "eth-overview-send"),
		step("mm-send-new", recent.Add(time.Second), "mm_click", "home", "eth-overview-send", true),
		step("mm-send-new", recent.Add(2*time.Second), "mm_type", "unknown", "amount-input", true),
		step("mm-send-new", recent.Add(3*time.Second), "mm_click", "unknown", "confirm-footer-button", false),
		step("mm-swap-1", swap, "mm_click", "home", "token-overview-button-swap", true),
	} {
		r.Observation.A11y.Nodes = nil
		if i == 0 {
			r.Observation.A11y.Nodes = append(r.Observation.A11y.Nodes, a11y("e1", "button", "Send"))
		}
		mustRecord(t, s, r)
	}
	return s
}

func tools(steps []StepSummary) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.SessionID+"/"+s.Tool)
	}
	return strings.Join(out, " ")
}

func TestLast(t *testing.T) {
	s := fixture(t)
	ctx := context.Background()
	cases := map[string]struct {
		current string
		q       LastQuery
		want    string
	}{
		"default scope is current": {"mm-send-old", LastQuery{},
			"mm-send-old/mm_click mm-send-old/mm_describe_screen"},
		"no current session gives nothing": {"", LastQuery{}, ""},
		"all newest first": {"", LastQuery{Scope: AllScope, N: 3},
			"mm-send-new/mm_click mm-send-new/mm_type mm-send-new/mm_click"},
		"named session":            {"mm-send-old", LastQuery{Scope: SessionScope("mm-swap-1")}, "mm-swap-1/mm_click"},
		"unknown session is empty": {"", LastQuery{Scope: SessionScope("mm-nope")}, ""},
		"flowTag filter":           {"", LastQuery{Scope: AllScope, Filters: &Filters{FlowTag: "swap"}}, "mm-swap-1/mm_click"},
		"tag filter":               {"", LastQuery{Scope: AllScope, N: 1, Filters: &Filters{Tag: "smoke"}}, "mm-send-new/mm_click"},
		"gitBranch filter": {"", LastQuery{Scope: AllScope, Filters: &Filters{GitBranch: "main"}},
			"mm-send-old/mm_click mm-send-old/mm_describe_screen"},
		"screen filter": {"", LastQuery{Scope: AllScope, Filters: &Filters{Screen: "unknown"}},
			"mm-send-new/mm_click mm-send-new/mm_type"},
		"sinceHours filter": {"", LastQuery{Scope: AllScope, Filters: &Filters{SinceHours: 24, FlowTag: "send"}},
			"mm-send-new/mm_click mm-send-new/mm_type mm-send-new/mm_click mm-send-new/mm_describe_screen"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := s.Last(ctx, tc.current, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := tools(res.Steps); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLastAndSearchDefaultToTwenty(t *testing.T) {
	s := newStore(t)
	for i := range 25 {
		mustRecord(t, s, step("mm-long-1", t0.Add(time.Duration(i)*time.Second), "mm_click", "home", fmt.Sprint("b", i), true))
	}
	res, err := s.Last(context.Background(), "mm-long-1", LastQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 20 || !strings.Contains(res.Steps[0].Snippet, "testId: b24") {
		t.Fatalf("got %d steps, first %+v", len(res.Steps), res.Steps[0])
	}
	found, err := s.Search(context.Background(), "", SearchQuery{Query: "click"})
	if err != nil || len(found.Matches) != 20 {
		t.Fatalf("search default limit: %d matches, %v", len(found.Matches), err)
	}
}

func TestSearch(t *testing.T) {
	s := fixture(t)
	ctx := context.Background()

	// Default scope is all; "transfer" finds send steps through synonyms.
	res, err := s.Search(ctx, "mm-swap-1", SearchQuery{Query: "transfer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) == 0 || res.Query != "transfer" {
		t.Fatalf("no matches: %+v", res)
	}
	top := res.Matches[0]
	if top.SessionID != "mm-send-new" || top.Tool != "mm_click" || !slices.Contains(top.MatchedFields, "testId:eth-overview-send") {
		t.Errorf("top match = %+v", top)
	}
	for _, m := range res.Matches {
		if m.SessionID == "mm-swap-1" {
			t.Errorf("swap session matched a send query: %+v", m)
		}
		if len(m.MatchedFields) == 0 {
			t.Errorf("match without matchedFields: %+v", m)
		}
	}

	// Scope current restricts to the current session.
	res, err = s.Search(ctx, "mm-swap-1", SearchQuery{Query: "exchange", Scope: CurrentScope})
	if err != nil {
		t.Fatal(err)
	}
	if tools(res.Matches) != "mm-swap-1/mm_click" || !slices.Contains(res.Matches[0].MatchedFields, "testId:token-overview-button-swap") {
		t.Errorf("current scope: %+v", res.Matches)
	}

	// Filters: screen and flowTag.
	res, err = s.Search(ctx, "", SearchQuery{Query: "click", Filters: &Filters{Screen: "unknown"}})
	if err != nil {
		t.Fatal(err)
	}
	if tools(res.Matches) != "mm-send-new/mm_click" {
		t.Errorf("screen filter: %s", tools(res.Matches))
	}
	res, err = s.Search(ctx, "", SearchQuery{Query: "click", Filters: &Filters{FlowTag: "swap"}})
	if err != nil {
		t.Fatal(err)
	}
	if tools(res.Matches) != "mm-swap-1/mm_click" {
		t.Errorf("flowTag filter: %s", tools(res.Matches))
	}

	// Approve/confirm, labels and a11y names are searchable.
	res, _ = s.Search(ctx, "", SearchQuery{Query: "approve", Limit: 1})
	if len(res.Matches) != 1 || !strings.Contains(res.Matches[0].Snippet, "confirm-footer-button") {
		t.Errorf("approve: %+v", res.Matches)
	}
	res, _ = s.Search(ctx, "", SearchQuery{Query: "error-recovery"})
	if len(res.Matches) == 0 || !slices.Contains(res.Matches[0].MatchedFields, "label:error-recovery") {
		t.Errorf("label: %+v", res.Matches)
	}
	res, _ = s.Search(ctx, "", SearchQuery{Query: "Send", Scope: SessionScope("mm-send-old")})
	if len(res.Matches) != 2 || !slices.Contains(res.Matches[1].MatchedFields, `a11y:button:"Send"`) {
		t.Errorf("a11y: %+v", res.Matches)
	}

	// Only stopwords: no matches, no error.
	res, err = s.Search(ctx, "", SearchQuery{Query: "the a"})
	if err != nil || len(res.Matches) != 0 {
		t.Errorf("stopwords: %+v %v", res, err)
	}
	// Limit.
	res, _ = s.Search(ctx, "", SearchQuery{Query: "mm_click", Limit: 2})
	if len(res.Matches) != 2 {
		t.Errorf("limit: %d matches", len(res.Matches))
	}
}

func TestSearchGoalAndFlowTag(t *testing.T) {
	s := fixture(t)
	res, err := s.Search(context.Background(), "", SearchQuery{Query: "dai"})
	if err != nil {
		t.Fatal(err)
	}
	if tools(res.Matches) != "mm-swap-1/mm_click" || !slices.Contains(res.Matches[0].MatchedFields, "goal") ||
		res.Matches[0].SessionGoal != "swap ETH for DAI" {
		t.Errorf("goal: %+v", res.Matches)
	}
}

func TestSummarize(t *testing.T) {
	s := fixture(t)
	ctx := context.Background()
	res, err := s.Summarize(ctx, "mm-send-new", SummarizeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "mm-send-new" || res.StepCount != 4 || len(res.Recipe) != 4 {
		t.Fatalf("summary = %+v", res)
	}
	if r := res.Recipe[1]; r.StepNumber != 2 || r.Tool != "mm_click" || r.Notes != `target: [data-testid="eth-overview-send"]; on screen: home` {
		t.Errorf("recipe[1] = %+v", r)
	}
	if r := res.Recipe[3]; !strings.Contains(r.Notes, "FAILED: element not found") {
		t.Errorf("recipe[3] = %+v", r)
	}
	// Legacy sessionId wins over scope.
	res, err = s.Summarize(ctx, "mm-send-new", SummarizeQuery{SessionID: "mm-swap-1", Scope: CurrentScope})
	if err != nil || res.SessionID != "mm-swap-1" || res.StepCount != 1 {
		t.Fatalf("legacy: %+v %v", res, err)
	}
	res, err = s.Summarize(ctx, "", SummarizeQuery{Scope: SessionScope("mm-send-old")})
	if err != nil || res.StepCount != 2 {
		t.Fatalf("scope sessionId: %+v %v", res, err)
	}
	_, err = s.Summarize(ctx, "mm-send-new", SummarizeQuery{Scope: AllScope})
	wantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.Summarize(ctx, "", SummarizeQuery{})
	wantCode(t, err, sdk.CodeNoActiveSession)
}

func TestSessions(t *testing.T) {
	s := fixture(t)
	ctx := context.Background()
	res, err := s.Sessions(ctx, SessionsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range res.Sessions {
		ids = append(ids, x.SessionID)
	}
	if strings.Join(ids, " ") != "mm-send-new mm-swap-1 mm-send-old" {
		t.Fatalf("order = %v", ids)
	}
	if g := res.Sessions[0].Git; g == nil || g.Branch != "feat" {
		t.Errorf("git = %+v", g)
	}
	if res.Sessions[1].FlowTags == nil || res.Sessions[1].Tags == nil {
		t.Errorf("tags must be lists: %+v", res.Sessions[1])
	}
	for _, tc := range []struct {
		f    Filters
		want int
	}{
		{Filters{FlowTag: "send"}, 2}, {Filters{Tag: "smoke"}, 1}, {Filters{GitBranch: "main"}, 1},
		{Filters{SinceHours: 24}, 2}, {Filters{Screen: "unknown"}, 1}, {Filters{FlowTag: "sign"}, 0},
	} {
		res, err := s.Sessions(ctx, SessionsQuery{Filters: &tc.f})
		if err != nil || len(res.Sessions) != tc.want {
			t.Errorf("%+v: %d sessions, want %d (%v)", tc.f, len(res.Sessions), tc.want, err)
		}
	}
	res, _ = s.Sessions(ctx, SessionsQuery{Limit: 1})
	if len(res.Sessions) != 1 {
		t.Errorf("limit: %d", len(res.Sessions))
	}
}

func TestSessionsDefaultLimit(t *testing.T) {
	s := newStore(t)
	for i := range 12 {
		mustSession(t, s, fmt.Sprintf("mm-s-%02d", i), t0.Add(time.Duration(i)*time.Minute), "", nil, nil, "")
	}
	res, err := s.Sessions(context.Background(), SessionsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 10 || res.Sessions[0].SessionID != "mm-s-11" {
		t.Fatalf("got %d, first %s", len(res.Sessions), res.Sessions[0].SessionID)
	}
}

// decodeQuery decodes a tool's JSON arguments into its query, as the
// host does before it calls the store.
func decodeQuery[Q any](t *testing.T, args string) Q {
	t.Helper()
	var q Q
	if err := json.Unmarshal([]byte(args), &q); err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return q
}

func TestQueriesApplySpecDefaults(t *testing.T) {
	s := fixture(t)
	ctx := context.Background()
	// search: default scope all.
	sr, err := s.Search(ctx, "mm-swap-1", decodeQuery[SearchQuery](t, `{"query":"send"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(sr.Matches) == 0 || sr.Matches[0].SessionID == "mm-swap-1" {
		t.Errorf("search default scope: %+v", sr)
	}
	// last: default scope current.
	lr, err := s.Last(ctx, "mm-swap-1", decodeQuery[LastQuery](t, `{}`))
	if err != nil || tools(lr.Steps) != "mm-swap-1/mm_click" {
		t.Errorf("last: %+v %v", lr, err)
	}
	lr, err = s.Last(ctx, "", decodeQuery[LastQuery](t, `{"n":1,"scope":{"sessionId":"mm-send-old"},"filters":{"screen":"home"}}`))
	if err != nil || tools(lr.Steps) != "mm-send-old/mm_click" {
		t.Errorf("last scoped: %+v %v", lr, err)
	}
	_, err = s.Summarize(ctx, "mm-swap-1", decodeQuery[SummarizeQuery](t, `{"scope":"all"}`))
	wantCode(t, err, sdk.CodeInvalidInput)
	ss, err := s.Sessions(ctx, SessionsQuery{})
	if err != nil || len(ss.Sessions) != 3 {
		t.Errorf("sessions: %+v %v", ss, err)
	}
	// Results encode as the spec's shapes.
	b, _ := json.Marshal(ss)
	if !strings.HasPrefix(string(b), `{"sessions":[{"sessionId":"mm-send-new","createdAt":`) {
		t.Errorf("json = %s", b)
	}
}
