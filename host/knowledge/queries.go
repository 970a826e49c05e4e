package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Defaults of the knowledge tools, for a query that leaves them zero. Their
// one home is the tools' schemas (host/schemas), read here.
var (
	DefaultLastN         = schemaDefault("knowledge_last", "n")
	DefaultSearchLimit   = schemaDefault("knowledge_search", "limit")
	DefaultSessionsLimit = schemaDefault("knowledge_sessions", "limit")
)

// schemaDefault is the integer default of a tool's top-level property.
func schemaDefault(tool, prop string) int {
	defaults, err := sdk.SchemaDefaults(schemas.Get(tool))
	if err != nil {
		panic(err)
	}
	var m map[string]json.RawMessage
	var n int
	if err := json.Unmarshal(defaults, &m); err != nil || json.Unmarshal(m[prop], &n) != nil || n == 0 {
		panic(fmt.Sprintf("schema of %s has no integer default for %s", tool, prop))
	}
	return n
}

// LastQuery is the input of mm_knowledge_last.
type LastQuery struct {
	// N is how many steps to return (default 20).
	N int `json:"n,omitempty"`
	// Scope defaults to the current session.
	Scope Scope `json:"scope,omitzero"`
	// Filters narrow the steps.
	Filters *Filters `json:"filters,omitempty"`
}

// SearchQuery is the input of mm_knowledge_search.
type SearchQuery struct {
	// Query is free text: tool names, screens, testids, accessible names,
	// labels, targets, goals and flow tags are matched, with synonyms.
	Query string `json:"query"`
	// Limit caps the matches (default 20).
	Limit int `json:"limit,omitempty"`
	// Scope defaults to all sessions.
	Scope Scope `json:"scope,omitzero"`
	// Filters narrow the sessions and steps.
	Filters *Filters `json:"filters,omitempty"`
}

// SummarizeQuery is the input of mm_knowledge_summarize.
type SummarizeQuery struct {
	// SessionID is the deprecated way to name the session; it wins over
	// Scope.
	SessionID string `json:"sessionId,omitempty"`
	// Scope defaults to the current session; "all" is refused.
	Scope Scope `json:"scope,omitzero"`
}

// SessionsQuery is the input of mm_knowledge_sessions.
type SessionsQuery struct {
	// Limit caps the sessions (default 10).
	Limit int `json:"limit,omitempty"`
	// Filters narrow the sessions.
	Filters *Filters `json:"filters,omitempty"`
}

// selection is a query's resolved sessions and step filter.
type selection struct {
	sessions []*sessionEntry
	screen   string
}

func (sel *selection) keep(e *stepEntry, syms *symtab) bool {
	return sel.screen == "" || syms.str(e.screen) == sel.screen
}

// selectSessions resolves scope against the index (refreshed by the
// caller). The session filters (flowTag, tag, gitBranch, sinceHours from
// the session's createdAt) apply to every scope, the step filter
// (screen) to every step. Scope "current" without a current session
// selects nothing, as in client-mcp-core.
func (s *Store) selectSessions(scope Scope, current string, f *Filters) (*selection, error) {
	if err := scope.validate(); err != nil {
		return nil, err
	}
	sel := &selection{}
	var since time.Time
	if f != nil {
		sel.screen = f.Screen
		if f.SinceHours > 0 {
			since = s.now().Add(-time.Duration(f.SinceHours) * time.Hour)
		}
	}
	switch scope.Kind {
	case ScopeCurrent:
		if current == "" {
			return sel, nil
		}
		if err := checkSessionID("current session", current); err != nil {
			return nil, err
		}
		if se := s.ix.sessions[current]; se != nil && sessionMatches(se, f, since) {
			sel.sessions = []*sessionEntry{se}
		}
	case ScopeSession:
		if se := s.ix.sessions[scope.SessionID]; se != nil && sessionMatches(se, f, since) {
			sel.sessions = []*sessionEntry{se}
		}
	case ScopeAll:
		for _, se := range s.ix.sessions {
			if sessionMatches(se, f, since) {
				sel.sessions = append(sel.sessions, se)
			}
		}
		slices.SortFunc(sel.sessions, func(a, b *sessionEntry) int { return strings.Compare(a.id, b.id) })
	}
	return sel, nil
}

// sessionMatches applies the session-level filters to session.json; a
// session without one fails every tag or branch filter.
func sessionMatches(se *sessionEntry, f *Filters, since time.Time) bool {
	if f == nil {
		return true
	}
	if slices.Contains(f.Exclude, se.id) {
		return false
	}
	m := se.meta
	if f.FlowTag != "" && (m == nil || !slices.Contains(m.FlowTags, f.FlowTag)) {
		return false
	}
	if f.Tag != "" && (m == nil || !slices.Contains(m.Tags, f.Tag)) {
		return false
	}
	if f.GitBranch != "" && (m == nil || m.Git == nil || m.Git.Branch != f.GitBranch) {
		return false
	}
	if !since.IsZero() && se.createdAt().Before(since) {
		return false
	}
	return true
}

func (s *Store) lockedRefresh(ctx context.Context) (unlock func(), err error) {
	s.mu.Lock()
	if err := s.refresh(ctx); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	return s.mu.Unlock, nil
}

// Last returns the newest steps of the scope (default: the current
// session), newest first.
func (s *Store) Last(ctx context.Context, current string, q LastQuery) (*LastResult, error) {
	if s.shared != nil {
		id := onlySession(q.Scope.orDefault(CurrentScope), current)
		if !s.fromDisk(ctx, id, nil) {
			res, err := s.shared.Last(ctx, current, q)
			if err == nil || !s.fromDisk(ctx, id, err) {
				return res, err
			}
		}
	}
	n := q.N
	if n <= 0 {
		n = DefaultLastN
	}
	scope := q.Scope.orDefault(CurrentScope)
	unlock, err := s.lockedRefresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sel, err := s.selectSessions(scope, current, q.Filters)
	if err != nil {
		return nil, err
	}
	// Keep the n newest: each session's list is in time order, so walk it
	// backwards and stop at the first step older than the n-th newest.
	var all []*stepEntry
	for _, se := range sel.sessions {
		list := se.sorted()
		for i := len(list) - 1; i >= 0; i-- {
			e := list[i]
			if len(all) >= n && !stepLess(all[n-1], e) {
				break
			}
			if !sel.keep(e, s.ix.syms) {
				continue
			}
			j, _ := slices.BinarySearchFunc(all, e, func(a, b *stepEntry) int {
				if stepLess(b, a) {
					return -1
				}
				return 1
			})
			all = slices.Insert(all, j, e)
			if len(all) > n {
				all = all[:n]
			}
		}
	}
	res := &LastResult{Steps: make([]StepSummary, 0, min(n, len(all)))}
	for _, e := range all[:min(n, len(all))] {
		sum := s.summary(e, nil)
		if scope.Kind != ScopeCurrent && e.sess.meta != nil {
			sum.SessionGoal = e.sess.meta.Goal
		}
		res.Steps = append(res.Steps, sum)
	}
	return res, nil
}

// Summarize returns the session's steps as a recipe. SessionID wins over
// Scope; the default scope is the current session; "all" is refused.
func (s *Store) Summarize(ctx context.Context, current string, q SummarizeQuery) (*SummarizeResult, error) {
	if s.shared != nil {
		id, _ := SummarizeTarget(current, q)
		if !s.fromDisk(ctx, id, nil) {
			res, err := s.shared.Summarize(ctx, current, q)
			if err == nil || !s.fromDisk(ctx, id, err) {
				return res, err
			}
		}
	}
	id, err := SummarizeTarget(current, q)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lockedRefresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res := &SummarizeResult{SessionID: id, Recipe: []RecipeStep{}}
	se := s.ix.sessions[id]
	if se == nil {
		return res, nil
	}
	steps := se.sorted()
	res.StepCount = len(steps)
	for i, e := range steps {
		res.Recipe = append(res.Recipe, RecipeStep{StepNumber: i + 1, Tool: s.ix.syms.str(e.tool), Notes: notes(e, s.ix.syms)})
	}
	return res, nil
}

// Sessions lists sessions newest first (by createdAt), with their tags.
func (s *Store) Sessions(ctx context.Context, q SessionsQuery) (*SessionsResult, error) {
	if s.shared != nil {
		return s.shared.Sessions(ctx, q)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSessionsLimit
	}
	unlock, err := s.lockedRefresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sel, err := s.selectSessions(AllScope, "", q.Filters)
	if err != nil {
		return nil, err
	}
	var list []*sessionEntry
	for _, se := range sel.sessions {
		if se.meta == nil && len(se.list) == 0 {
			continue
		}
		if sel.screen != "" && !slices.ContainsFunc(se.list, func(e *stepEntry) bool { return sel.keep(e, s.ix.syms) }) {
			continue
		}
		list = append(list, se)
	}
	slices.SortFunc(list, func(a, b *sessionEntry) int {
		if c := b.createdAt().Compare(a.createdAt()); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	res := &SessionsResult{Sessions: make([]SessionSummary, 0, min(limit, len(list)))}
	for _, se := range list[:min(limit, len(list))] {
		res.Sessions = append(res.Sessions, sessionSummary(se))
	}
	return res, nil
}

func sessionSummary(se *sessionEntry) SessionSummary {
	sum := SessionSummary{SessionID: se.id, FlowTags: []string{}, Tags: []string{}}
	if t := se.createdAt(); !t.IsZero() {
		sum.CreatedAt = formatTime(t)
	}
	if m := se.meta; m != nil {
		if m.CreatedAt != "" {
			sum.CreatedAt = m.CreatedAt
		}
		sum.Goal = m.Goal
		if m.FlowTags != nil {
			sum.FlowTags = m.FlowTags
		}
		if m.Tags != nil {
			sum.Tags = m.Tags
		}
		if m.Git != nil && (m.Git.Branch != "" || m.Git.Commit != "") {
			sum.Git = &SessionGit{Branch: m.Git.Branch, Commit: m.Git.Commit}
		}
	}
	return sum
}

// summary renders one step for the knowledge tools.
func (s *Store) summary(e *stepEntry, matched []string) StepSummary {
	return StepSummary{
		Timestamp:     e.tsRaw,
		Tool:          s.ix.syms.str(e.tool),
		Screen:        s.ix.syms.str(e.screen),
		Snippet:       snippet(e, s.ix.syms, matched),
		SessionID:     e.sess.id,
		MatchedFields: matched,
	}
}

// snippet is a one-line summary: what matched, the target, labels,
// screen and error code.
func snippet(e *stepEntry, syms *symtab, matched []string) string {
	var parts []string
	if len(matched) > 0 {
		parts = append(parts, "match: "+strings.Join(matched[:min(3, len(matched))], ", "))
	}
	switch {
	case e.target.TestID != "":
		parts = append(parts, "testId: "+e.target.TestID)
	case e.target.A11yRef != "":
		ref := "ref: " + e.target.A11yRef
		if e.hint != nil {
			ref += " (" + e.hint.Role + " \"" + e.hint.Name + "\")"
		}
		parts = append(parts, ref)
	case e.target.Selector != "":
		parts = append(parts, "selector: "+truncate(e.target.Selector, 40))
	}
	if len(e.labels) > 0 {
		ls := make([]string, len(e.labels))
		for i, l := range e.labels {
			ls[i] = syms.str(l)
		}
		parts = append(parts, "labels: "+strings.Join(ls, ", "))
	}
	parts = append(parts, "screen: "+syms.str(e.screen))
	if !e.ok && e.errCode != "" {
		parts = append(parts, "error: "+e.errCode)
	}
	return strings.Join(parts, ", ")
}

// notes describe one recipe step.
func notes(e *stepEntry, syms *symtab) string {
	var n []string
	switch {
	case e.target.TestID != "":
		n = append(n, `target: [data-testid="`+e.target.TestID+`"]`)
	case e.target.A11yRef != "":
		t := "target: " + e.target.A11yRef
		if e.hint != nil {
			t += " (" + e.hint.Role + " \"" + e.hint.Name + "\")"
		}
		n = append(n, t)
	case e.target.Selector != "":
		n = append(n, "target: "+truncate(e.target.Selector, 80))
	}
	n = append(n, "on screen: "+syms.str(e.screen))
	if !e.ok {
		msg := e.errMsg
		if msg == "" {
			msg = e.errCode
		}
		n = append(n, "FAILED: "+truncate(msg, 200))
	}
	if e.screenshot {
		n = append(n, "screenshot captured")
	}
	return strings.Join(n, "; ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// SummarizeTarget resolves the session a summarize query names: SessionID
// wins over Scope; the default scope is the current session; "all" is
// refused.
func SummarizeTarget(current string, q SummarizeQuery) (string, error) {
	var id string
	switch scope := q.Scope.orDefault(CurrentScope); {
	case q.SessionID != "":
		if err := checkSessionID("sessionId", q.SessionID); err != nil {
			return "", err
		}
		id = q.SessionID
	case scope.Kind == ScopeAll:
		return "", sdk.Errorf(sdk.CodeInvalidInput,
			`cannot summarize all sessions: use scope "current" or {"sessionId": "..."}`)
	case scope.Kind == ScopeCurrent:
		if current == "" {
			return "", sdk.Errorf(sdk.CodeNoActiveSession,
				`no active session to summarize: launch one, or pass scope {"sessionId": "..."} (see mm_knowledge_sessions)`)
		}
		if err := checkSessionID("current session", current); err != nil {
			return "", err
		}
		id = current
	default:
		if err := scope.validate(); err != nil {
			return "", err
		}
		id = scope.SessionID
	}
	return id, nil
}
