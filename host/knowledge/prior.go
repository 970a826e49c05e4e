package knowledge

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// Prior knowledge limits, as in client-mcp-core.
const (
	DefaultPriorWindowHours = 48
	priorMaxSessions        = 20
	priorMaxRelated         = 5
	priorMaxSimilar         = 10
	priorMaxSuggested       = 5
	priorMaxAvoid           = 5
	priorMinFailures        = 2
)

// Similarity weights: the screen the step was taken on counts most, then
// the URL route, testids and accessible names seen there, whether the
// step's target is visible now, and whether the step was an action.
const (
	simScreen        = 8
	simURL           = 6
	simTestID        = 3 // per shared testid, at most 3
	simA11y          = 2 // per shared accessible name, at most 2
	simTargetVisible = 4
	simActionable    = 2
	simMax           = simScreen + simURL + 3*simTestID + 2*simA11y + simTargetVisible + simActionable
)

// PriorQuery is what mm_describe_screen knows about the current screen.
type PriorQuery struct {
	// Screen is the current screen name.
	Screen string
	// URL is the current page URL; its hash route is compared.
	URL string
	// TestIDs are the visible testids.
	TestIDs []observation.TestIDItem
	// A11yNodes is the trimmed accessibility tree.
	A11yNodes []observation.A11yNode
	// FlowTags override the current session's flow tags (from its
	// session.json) when set.
	FlowTags []string
	// WindowHours is how far back to look (default 48).
	WindowHours int
	// Exclude leaves these sessions out (another client's running
	// session, serve --http).
	Exclude []string
}

// PriorKnowledge is PriorKnowledgeV1 of client-mcp-core: hints from
// earlier sessions for the screen the agent is looking at.
type PriorKnowledge struct {
	// SchemaVersion is 1.
	SchemaVersion int `json:"schemaVersion"`
	// GeneratedAt is when the hints were computed.
	GeneratedAt string `json:"generatedAt"`
	// Query says what was looked at.
	Query PriorQueryInfo `json:"query"`
	// RelatedSessions are the newest candidate sessions with metadata.
	RelatedSessions []SessionSummary `json:"relatedSessions"`
	// SimilarSteps are earlier actions taken on a screen like this one.
	SimilarSteps []SimilarStep `json:"similarSteps"`
	// SuggestedNextActions are targets that worked here before.
	SuggestedNextActions []SuggestedAction `json:"suggestedNextActions"`
	// Avoid lists targets that failed here repeatedly.
	Avoid []AvoidTarget `json:"avoid,omitempty"`
}

// PriorQueryInfo is the query block of PriorKnowledge.
type PriorQueryInfo struct {
	// WindowHours is the look-back window.
	WindowHours int `json:"windowHours"`
	// UsedFlowTags are the flow tags sessions had to share.
	UsedFlowTags []string `json:"usedFlowTags"`
	// UsedFilters are the filters applied.
	UsedFilters map[string]any `json:"usedFilters"`
	// CandidateSessions is how many sessions were scanned.
	CandidateSessions int `json:"candidateSessions"`
	// CandidateSteps is how many steps were scanned.
	CandidateSteps int `json:"candidateSteps"`
}

// StepTarget is the testid or selector of a similar step.
type StepTarget struct {
	// TestID is the data-testid.
	TestID string `json:"testId,omitempty"`
	// Selector is the CSS selector.
	Selector string `json:"selector,omitempty"`
}

// SimilarStep is one earlier step taken on a similar screen.
type SimilarStep struct {
	// SessionID is the step's session.
	SessionID string `json:"sessionId"`
	// Timestamp is the step's timestamp.
	Timestamp string `json:"timestamp"`
	// Tool is the tool name.
	Tool string `json:"tool"`
	// Screen is the screen the step was taken on.
	Screen string `json:"screen"`
	// Snippet summarizes the step.
	Snippet string `json:"snippet"`
	// Labels are the step's labels.
	Labels []string `json:"labels,omitempty"`
	// Target is the step's testid or selector.
	Target *StepTarget `json:"target,omitempty"`
	// A11yHint names the step's a11yRef target.
	A11yHint *A11yHint `json:"a11yHint,omitempty"`
	// Confidence is the similarity, 0 to 1.
	Confidence float64 `json:"confidence"`
}

// PriorTarget is a way to address an element: Type "testId" or
// "selector" with a string Value, or "a11yHint" with an A11yHint Value.
type PriorTarget struct {
	// Type is "testId", "selector" or "a11yHint".
	Type string `json:"type"`
	// Value is a string or an *A11yHint.
	Value any `json:"value"`
}

// SuggestedAction is a next action that succeeded on this screen before.
type SuggestedAction struct {
	// Rank counts from 1.
	Rank int `json:"rank"`
	// Action is click, type, wait_for, navigate or wait_for_notification.
	Action string `json:"action"`
	// Rationale says why it is suggested.
	Rationale string `json:"rationale"`
	// Confidence is 0 to 1.
	Confidence float64 `json:"confidence"`
	// PreferredTarget is the target to use.
	PreferredTarget PriorTarget `json:"preferredTarget"`
	// FallbackTargets address the same element differently.
	FallbackTargets []PriorTarget `json:"fallbackTargets,omitempty"`
}

// AvoidTarget is a target that failed repeatedly on this screen.
type AvoidTarget struct {
	// Rationale says why.
	Rationale string `json:"rationale"`
	// Target is the failing testid or selector.
	Target StepTarget `json:"target"`
	// ErrorCode is the most recent failure's code.
	ErrorCode string `json:"errorCode,omitempty"`
	// Frequency is how many times it failed.
	Frequency int `json:"frequency"`
}

// suggestible says a step's action may be suggested again: an interaction
// or a navigation.
func suggestible(e *stepEntry) bool {
	return e.class == LabelInteraction || e.class == LabelNavigation
}

// PriorKnowledge returns hints for the current screen from recent sessions
// other than current: those sharing a flow tag with it (all recent ones
// when it has none). Suggested actions come only from steps that
// succeeded; avoid lists targets that failed at least twice on this
// screen. It returns nil when there is nothing to say.
func (s *Store) PriorKnowledge(ctx context.Context, current string, q PriorQuery) (*PriorKnowledge, error) {
	if s.shared != nil {
		return s.shared.PriorKnowledge(ctx, current, q)
	}
	window := q.WindowHours
	if window <= 0 {
		window = DefaultPriorWindowHours
	}
	unlock, err := s.lockedRefresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	now := s.now()
	since := now.Add(-time.Duration(window) * time.Hour)
	tags := q.FlowTags
	if len(tags) == 0 && current != "" {
		if se := s.ix.sessions[current]; se != nil && se.meta != nil {
			tags = se.meta.FlowTags
		}
	}
	if tags == nil {
		tags = []string{}
	}

	var cands []*sessionEntry
	for id, se := range s.ix.sessions {
		if id == current || len(se.list) == 0 || se.lastActive().Before(since) || slices.Contains(q.Exclude, id) {
			continue
		}
		if len(tags) > 0 && (se.meta == nil || !slices.ContainsFunc(se.meta.FlowTags, func(t string) bool { return slices.Contains(tags, t) })) {
			continue
		}
		cands = append(cands, se)
	}
	slices.SortFunc(cands, func(a, b *sessionEntry) int {
		if c := b.lastActive().Compare(a.lastActive()); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	cands = cands[:min(priorMaxSessions, len(cands))]
	if len(cands) == 0 {
		return nil, nil
	}

	syms := s.ix.syms
	visible := map[int32]bool{}
	for _, t := range q.TestIDs {
		if id, ok := syms.ids[t.TestID]; ok {
			visible[id] = true
		}
	}
	names := map[int32]bool{}
	for _, n := range q.A11yNodes {
		if id, ok := syms.ids[n.Name]; ok && n.Name != "" {
			names[id] = true
		}
	}
	route := routeTokens(q.URL)

	type scored struct {
		e      *stepEntry
		before *stepEntry
		score  int
	}
	var similar []scored
	avoid := map[string]*AvoidTarget{}
	var avoidOrder []string
	steps := 0
	for _, se := range cands {
		list := se.sorted()
		for i, e := range list {
			steps++
			if e.ts.Before(since) {
				continue
			}
			// The screen a step acted on is what the previous step saw.
			before := e
			if i > 0 {
				before = list[i-1]
			}
			if !e.ok && syms.str(e.screen) == q.Screen && (e.target.TestID != "" || e.target.Selector != "") {
				key := e.target.TestID + "\x00" + e.target.Selector
				a := avoid[key]
				if a == nil {
					a = &AvoidTarget{Target: StepTarget{TestID: e.target.TestID, Selector: e.target.Selector}}
					avoid[key] = a
					avoidOrder = append(avoidOrder, key)
				}
				a.Frequency++
				a.ErrorCode = e.errCode
			}
			if e.class == LabelDiscovery {
				continue
			}
			if sc := similarity(e, before, q.Screen, route, visible, names, syms); sc > 0 {
				similar = append(similar, scored{e, before, sc})
			}
		}
	}
	slices.SortStableFunc(similar, func(a, b scored) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return b.e.ts.Compare(a.e.ts)
	})

	pk := &PriorKnowledge{
		SchemaVersion: 1,
		GeneratedAt:   formatTime(now),
		Query: PriorQueryInfo{
			WindowHours:       window,
			UsedFlowTags:      tags,
			UsedFilters:       map[string]any{"sinceHours": window},
			CandidateSessions: len(cands),
			CandidateSteps:    steps,
		},
		RelatedSessions:      []SessionSummary{},
		SimilarSteps:         []SimilarStep{},
		SuggestedNextActions: []SuggestedAction{},
	}
	if len(tags) > 0 {
		pk.Query.UsedFilters["flowTags"] = tags
	}
	for _, se := range cands {
		if se.meta != nil && len(pk.RelatedSessions) < priorMaxRelated {
			pk.RelatedSessions = append(pk.RelatedSessions, sessionSummary(se))
		}
	}
	for _, sc := range similar[:min(priorMaxSimilar, len(similar))] {
		pk.SimilarSteps = append(pk.SimilarSteps, s.similarStep(sc.e, sc.before, sc.score))
	}
	var succeeded []weighted
	for _, sc := range similar {
		if sc.e.ok {
			succeeded = append(succeeded, weighted{sc.e, sc.score})
		}
	}
	pk.SuggestedNextActions = s.suggest(succeeded, visible, q.A11yNodes)
	for _, key := range avoidOrder {
		if a := avoid[key]; a.Frequency >= priorMinFailures {
			a.Rationale = "Failed " + itoa(a.Frequency) + " times on this screen in earlier sessions"
			pk.Avoid = append(pk.Avoid, *a)
		}
	}
	slices.SortStableFunc(pk.Avoid, func(a, b AvoidTarget) int { return b.Frequency - a.Frequency })
	pk.Avoid = pk.Avoid[:min(priorMaxAvoid, len(pk.Avoid))]
	if len(pk.SimilarSteps) == 0 && len(pk.SuggestedNextActions) == 0 && len(pk.Avoid) == 0 && len(pk.RelatedSessions) == 0 {
		return nil, nil
	}
	return pk, nil
}

// weighted is a step with its similarity score.
type weighted struct {
	e     *stepEntry
	score int
}

// similarity scores a step against the current screen; zero when nothing
// but the tool kind is shared.
func similarity(e, before *stepEntry, screen string, route []string, visible, names map[int32]bool, syms *symtab) int {
	score := 0
	if bs := syms.str(before.screen); bs == screen && bs != "unknown" {
		score += simScreen
	}
	if len(route) > 0 {
		for _, t := range routeTokens(before.url) {
			if slices.Contains(route, t) {
				score += simURL
				break
			}
		}
	}
	n := 0
	for _, t := range before.testIDs {
		if visible[t] {
			if n++; n == 3 {
				break
			}
		}
	}
	score += n * simTestID
	n = 0
	for _, p := range before.a11y {
		if names[p.name] {
			if n++; n == 2 {
				break
			}
		}
	}
	score += n * simA11y
	if e.targetTID != noSym && visible[e.targetTID] {
		score += simTargetVisible
	}
	if score == 0 {
		return 0
	}
	if suggestible(e) {
		score += simActionable
	}
	return score
}

func (s *Store) similarStep(e, before *stepEntry, score int) SimilarStep {
	syms := s.ix.syms
	st := SimilarStep{
		SessionID:  e.sess.id,
		Timestamp:  e.tsRaw,
		Tool:       syms.str(e.tool),
		Screen:     syms.str(before.screen),
		Snippet:    snippet(e, syms, nil),
		A11yHint:   e.hint,
		Confidence: confidence(score),
	}
	for _, l := range e.labels {
		st.Labels = append(st.Labels, syms.str(l))
	}
	if e.target.TestID != "" || e.target.Selector != "" {
		st.Target = &StepTarget{TestID: e.target.TestID, Selector: e.target.Selector}
	}
	return st
}

func confidence(score int) float64 {
	c := float64(score) / simMax
	return float64(int(min(c, 1)*100+0.5)) / 100
}

// suggest aggregates successful similar steps by target into ranked next
// actions.
func (s *Store) suggest(ok []weighted, visible map[int32]bool, nodes []observation.A11yNode) []SuggestedAction {
	type agg struct {
		e     *stepEntry
		count int
		sum   float64
	}
	byKey := map[string]*agg{}
	var order []string
	for _, w := range ok {
		if !suggestible(w.e) {
			continue
		}
		key := w.e.action + "\x00" + w.e.target.TestID + "\x00" + w.e.target.Selector
		if w.e.target.TestID == "" && w.e.target.Selector == "" {
			if w.e.hint == nil {
				continue
			}
			key += w.e.hint.Role + "\x00" + w.e.hint.Name
		}
		a := byKey[key]
		if a == nil {
			a = &agg{e: w.e}
			byKey[key] = a
			order = append(order, key)
		}
		a.count++
		a.sum += confidence(w.score)
	}
	slices.SortStableFunc(order, func(x, y string) int {
		a, b := byKey[x], byKey[y]
		switch {
		case a.sum > b.sum:
			return -1
		case a.sum < b.sum:
			return 1
		}
		return 0
	})
	out := []SuggestedAction{}
	for _, key := range order {
		if len(out) == priorMaxSuggested {
			break
		}
		a := byKey[key]
		e := a.e
		var pref PriorTarget
		switch {
		case e.targetTID != noSym && visible[e.targetTID]:
			pref = PriorTarget{Type: "testId", Value: e.target.TestID}
		case e.target.Selector != "":
			pref = PriorTarget{Type: "selector", Value: e.target.Selector}
		case e.hint != nil:
			pref = PriorTarget{Type: "a11yHint", Value: *e.hint}
		default:
			continue // its testid is not on this screen
		}
		rationale := "Most common next successful step on this screen"
		if a.count > 1 {
			rationale = "Used " + itoa(a.count) + " times successfully on this screen"
		}
		sa := SuggestedAction{
			Rank:            len(out) + 1,
			Action:          e.action,
			Rationale:       rationale,
			Confidence:      float64(int(min(a.sum/float64(a.count), 1)*100+0.5)) / 100,
			PreferredTarget: pref,
		}
		if pref.Type == "testId" {
			words := strings.ToLower(strings.ReplaceAll(e.target.TestID, "-", " "))
			for _, n := range nodes {
				name := strings.ToLower(n.Name)
				if name != "" && (strings.Contains(name, words) || strings.Contains(words, name)) {
					sa.FallbackTargets = []PriorTarget{{Type: "a11yHint", Value: A11yHint{Role: n.Role, Name: n.Name}}}
					break
				}
			}
		}
		out = append(out, sa)
	}
	return out
}

// routeTokens are the segments of a URL's hash route, without hex ids.
func routeTokens(url string) []string {
	_, hash, ok := strings.Cut(url, "#")
	if !ok {
		return nil
	}
	var out []string
	for _, t := range strings.Split(hash, "/") {
		if t != "" && !strings.HasPrefix(t, "0x") {
			out = append(out, t)
		}
	}
	return out
}
