package knowledge

import (
	"encoding/json"
	"strings"
	"time"
)

// StepFields are what a backend that searches in its own engine needs of
// one StepRecord: the typed columns and the searched strings, derived
// exactly as the file store's index derives them.
type StepFields struct {
	Timestamp time.Time
	Tool      string
	// Screen is the step's screen (a screen label wins over the
	// observation's, as in the index).
	Screen  string
	OK      bool
	ErrCode string
	Branch  string
	// TestIDs are the visible testids.
	TestIDs []string

	// The searched strings, lowercased; lists are joined by '\n' (a query
	// token never holds one).
	LowTool, LowScreen, Selector, Labels, A11y string
	// TargetWords are the identifier words of the target testid,
	// TestIDWords those of every visible testid.
	TargetWords, TestIDWords []string
}

// ParseStepFields decodes a StepRecord into its StepFields.
func ParseStepFields(record []byte) (*StepFields, error) {
	raw, err := parseStep(record)
	if err != nil {
		return nil, err
	}
	ix := newIndex()
	ix.addStep(ix.session("x"), "x", raw, fileStamp{})
	e := ix.sessions["x"].list[0]
	t := ix.syms
	f := &StepFields{
		Timestamp: e.ts, Tool: t.str(e.tool), Screen: t.str(e.screen), OK: e.ok, ErrCode: e.errCode,
		LowTool: strings.ToLower(t.str(e.tool)), LowScreen: strings.ToLower(t.str(e.screen)),
		Selector:    strings.ToLower(e.target.Selector),
		TargetWords: tokenizeIdentifier(e.target.TestID),
		TestIDs:     []string{},
		TestIDWords: []string{},
	}
	var labels, a11y []string
	for _, l := range e.labels {
		labels = append(labels, t.lower[l])
	}
	for _, id := range e.testIDs {
		f.TestIDs = append(f.TestIDs, t.str(id))
		for _, w := range t.idents[id] {
			f.TestIDWords = appendOnce(f.TestIDWords, w)
		}
	}
	for _, p := range e.a11y {
		a11y = append(a11y, t.lower[p.name], t.lower[p.role])
	}
	f.Labels, f.A11y = strings.Join(labels, "\n"), strings.Join(a11y, "\n")
	if f.TargetWords == nil {
		f.TargetWords = []string{}
	}
	var g struct {
		Git *GitInfo `json:"git"`
	}
	if json.Unmarshal(record, &g) == nil && g.Git != nil {
		f.Branch = g.Git.Branch
	}
	return f, nil
}

// SessionFields are the searched strings of a session.json, lowercased.
type SessionFields struct {
	FlowTags, Tags string // joined by '\n'
	GoalWords      []string
}

// MetaFields derives the SessionFields of m (nil: none).
func MetaFields(m *SessionMeta) SessionFields {
	f := SessionFields{GoalWords: []string{}}
	if m == nil {
		return f
	}
	f.FlowTags = strings.ToLower(strings.Join(m.FlowTags, "\n"))
	f.Tags = strings.ToLower(strings.Join(m.Tags, "\n"))
	if w := tokenize(m.Goal); w != nil {
		f.GoalWords = w
	}
	return f
}

// QueryTokens are the tokens a search matches: the query's words without
// stopwords, then their synonyms.
func QueryTokens(q string) []string { return expandSynonyms(tokenize(q)) }

// Weights are the search weights and the recency bonus, for a backend
// that scores in its own engine.
var Weights = struct {
	Tool, Screen, TargetTestID, TargetSelector, Label, TestID, A11y, FlowTag, Goal, Tag, CoverageMax int
	// Fresh is the bonus of a session created less than 24 hours ago,
	// Recent less than 72.
	Fresh, Recent int
}{wTool, wScreen, wTargetTID, wTargetSel, wLabel, wTestID, wA11y, wFlowTag, wGoal, wTag, wCoverageMax, 3, 1}

// Validate rejects an unknown scope kind or a session id that could
// escape the root.
func (s Scope) Validate() error { return s.validate() }

// OrDefault returns s, or def when s is the zero Scope.
func (s Scope) OrDefault(def Scope) Scope { return s.orDefault(def) }

// SummaryOf is a session as mm_knowledge_sessions lists it: its
// session.json (nil when none) and creation time.
func SummaryOf(id string, meta *SessionMeta, created time.Time) SessionSummary {
	se := &sessionEntry{id: id}
	se.setMeta(meta)
	if se.created.IsZero() {
		se.created = created
	}
	return sessionSummary(se)
}
