package knowledge

import (
	"context"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// Search weights, as in client-mcp-core: a hit on the tool name counts most,
// then the screen, the target testid, labels, visible testids and
// accessibility names; session flow tags, goal and tags lift every step of
// the session.
const (
	wTool        = 10
	wScreen      = 8
	wTargetTID   = 6
	wTargetSel   = 4
	wLabel       = 5
	wTestID      = 3
	wA11y        = 2
	wFlowTag     = 12
	wGoal        = 6
	wTag         = 4
	wCoverageMax = 5
)

// Search ranks the steps of the scope (default: all sessions) by how well
// they match the query, best first, each with the fields that matched.
func (s *Store) Search(ctx context.Context, current string, q SearchQuery) (*SearchResult, error) {
	if s.shared != nil {
		id := onlySession(q.Scope.orDefault(AllScope), current)
		if !s.fromDisk(ctx, id, nil) {
			res, err := s.shared.Search(ctx, current, q)
			if err == nil || !s.fromDisk(ctx, id, err) {
				return res, err
			}
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	res := &SearchResult{Matches: []StepSummary{}, Query: q.Query}
	scope := q.Scope.orDefault(AllScope)
	if err := scope.validate(); err != nil {
		return nil, err
	}
	base := tokenize(q.Query)
	tokens := expandSynonyms(base)
	unlock, err := s.lockedRefresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sel, err := s.selectSessions(scope, current, q.Filters)
	if err != nil || len(tokens) == 0 {
		return res, err
	}
	syms := s.ix.syms
	m := syms.masks(tokens)
	now := s.now()

	// First pass: scores only; matched fields are spelled out for the
	// results that make the cut.
	type hit struct {
		e     *stepEntry
		score int
	}
	var hits []hit
	for i, se := range sel.sessions {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		sScore, sMask, _ := sessionScore(se, tokens, false)
		bonus := recencyBonus(se, now)
		for _, e := range se.list {
			if !sel.keep(e, syms) {
				continue
			}
			score, mask, _ := stepScore(e, &m, syms, false)
			if mask == 0 && sMask == 0 {
				continue
			}
			score += sScore + bonus + wCoverageMax*bits.OnesCount64(mask|sMask)/len(tokens)
			hits = append(hits, hit{e: e, score: score})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		if stepLess(a.e, b.e) {
			return 1
		}
		return -1
	})
	for _, h := range hits[:min(limit, len(hits))] {
		_, _, fields := stepScore(h.e, &m, syms, true)
		_, _, sFields := sessionScore(h.e.sess, tokens, true)
		sum := s.summary(h.e, append(fields, sFields...))
		if h.e.sess.meta != nil {
			sum.SessionGoal = h.e.sess.meta.Goal
		}
		res.Matches = append(res.Matches, sum)
	}
	return res, nil
}

// stepScore scores one step: each field kind counts a token once, at its
// first matching value, and names that value in the matched fields.
func stepScore(e *stepEntry, m *queryMasks, syms *symtab, wantFields bool) (score int, mask uint64, fields []string) {
	add := func(bitsHit uint64, w int, field func() string) {
		score += w * bits.OnesCount64(bitsHit)
		mask |= bitsHit
		if wantFields {
			fields = append(fields, field())
		}
	}
	if b := m.sub[e.tool]; b != 0 {
		add(b, wTool, func() string { return "tool:" + syms.str(e.tool) })
	}
	if b := m.sub[e.screen]; b != 0 {
		add(b, wScreen, func() string { return "screen:" + syms.str(e.screen) })
	}
	if e.targetTID != noSym {
		if b := m.ident[e.targetTID]; b != 0 {
			add(b, wTargetTID, func() string { return "testId:" + syms.str(e.targetTID) })
		}
	}
	if e.targetSel != noSym {
		if b := m.sub[e.targetSel]; b != 0 {
			add(b, wTargetSel, func() string { return "selector:" + syms.str(e.targetSel) })
		}
	}
	var seen uint64
	for _, l := range e.labels {
		if b := m.sub[l] &^ seen; b != 0 {
			seen |= b
			add(b, wLabel, func() string { return "label:" + syms.str(l) })
		}
	}
	seen = 0
	for _, t := range e.testIDs {
		if b := m.ident[t] &^ seen; b != 0 {
			seen |= b
			if t != e.targetTID {
				add(b, wTestID, func() string { return "testId:" + syms.str(t) })
			} else {
				score += wTestID * bits.OnesCount64(b)
			}
		}
	}
	seen = 0
	for _, n := range e.a11y {
		if b := m.sub[n.name] &^ seen; b != 0 {
			seen |= b
			add(b, wA11y, func() string { return "a11y:" + syms.str(n.role) + ":\"" + truncate(syms.str(n.name), 60) + "\"" })
		}
		if b := m.sub[n.role] &^ seen; b != 0 {
			seen |= b
			add(b, wA11y, func() string { return "a11y:" + syms.str(n.role) })
		}
	}
	return score, mask, fields
}

// sessionScore matches the query against session.json: flow tags, goal
// and tags.
func sessionScore(se *sessionEntry, tokens []string, wantFields bool) (score int, mask uint64, fields []string) {
	m := se.meta
	if m == nil {
		return 0, 0, nil
	}
	goal := tokenize(m.Goal)
	for i, tok := range tokens {
		bit := uint64(1) << i
		for _, ft := range m.FlowTags {
			if strings.Contains(strings.ToLower(ft), tok) {
				score += wFlowTag
				mask |= bit
				if wantFields {
					fields = appendOnce(fields, "flowTag:"+ft)
				}
				break
			}
		}
		if slices.Contains(goal, tok) {
			score += wGoal
			mask |= bit
			if wantFields {
				fields = appendOnce(fields, "goal")
			}
		}
		for _, t := range m.Tags {
			if strings.Contains(strings.ToLower(t), tok) {
				score += wTag
				mask |= bit
				if wantFields {
					fields = appendOnce(fields, "tag:"+t)
				}
				break
			}
		}
	}
	return score, mask, fields
}

// recencyBonus ranks fresh sessions first among equal matches.
func recencyBonus(se *sessionEntry, now time.Time) int {
	switch age := now.Sub(se.createdAt()); {
	case age < 24*time.Hour:
		return 3
	case age < 72*time.Hour:
		return 1
	}
	return 0
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
