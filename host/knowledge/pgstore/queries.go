package pgstore

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mmcp-dev/mmcp/host/knowledge"
)

var _ knowledge.Shared = (*Store)(nil)

// args collects a query's parameters.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// sessionConds are the conditions on sessions (alias se) of a scope and
// the session filters, as the file store applies them; ok is false when
// the scope selects nothing.
func (s *Store) sessionConds(a *args, scope knowledge.Scope, current string, f *knowledge.Filters, now time.Time) (conds []string, ok bool, err error) {
	if err := scope.Validate(); err != nil {
		return nil, false, err
	}
	if f != nil && hasNUL(f.FlowTag, f.Tag, f.GitBranch, f.Screen) {
		return nil, false, nil // no text in the database holds a NUL
	}
	conds = []string{"se.repo = " + a.add(s.repo)}
	switch scope.Kind {
	case knowledge.ScopeCurrent:
		if current == "" {
			return nil, false, nil
		}
		if err := knowledge.SessionScope(current).Validate(); err != nil {
			return nil, false, err
		}
		conds = append(conds, "se.session_id = "+a.add(current))
	case knowledge.ScopeSession:
		conds = append(conds, "se.session_id = "+a.add(scope.SessionID))
	}
	if f != nil {
		if ex := withoutNUL(f.Exclude); len(ex) > 0 {
			conds = append(conds, "NOT (se.session_id = ANY("+a.add(ex)+"))")
		}
		if f.FlowTag != "" {
			conds = append(conds, a.add(f.FlowTag)+" = ANY(se.flow_tags)")
		}
		if f.Tag != "" {
			conds = append(conds, a.add(f.Tag)+" = ANY(se.tags)")
		}
		if f.GitBranch != "" {
			conds = append(conds, "se.meta IS NOT NULL AND se.branch = "+a.add(f.GitBranch))
		}
		if f.SinceHours > 0 {
			conds = append(conds, "COALESCE(se.meta_created_at, se.first_step_at) >= "+a.add(now.Add(-time.Duration(f.SinceHours)*time.Hour)))
		}
	}
	return conds, true, nil
}

// hasNUL reports whether one of ss holds a NUL byte, which PostgreSQL
// text cannot hold: a filter with one matches nothing (as in the file
// store), and must not reach the database, which refuses it.
func hasNUL(ss ...string) bool {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return true
		}
	}
	return false
}

// withoutNUL drops the values holding a NUL byte: none matches anything.
func withoutNUL(ss []string) []string {
	if !slices.ContainsFunc(ss, func(s string) bool { return hasNUL(s) }) {
		return ss
	}
	return slices.DeleteFunc(slices.Clone(ss), func(s string) bool { return hasNUL(s) })
}

func screenOf(f *knowledge.Filters) string {
	if f == nil {
		return ""
	}
	return f.Screen
}

// stepRef names one step.
type stepRef struct{ session, step string }

// view loads the steps refs names, and their sessions, into a knowledge
// view.
func (s *Store) view(ctx context.Context, now time.Time, refs []stepRef, extraSessions []string) (*knowledge.Store, error) {
	v := knowledge.NewView(now)
	ids := append([]string{}, extraSessions...)
	var sids, stids []string
	for _, r := range refs {
		ids = append(ids, r.session)
		sids, stids = append(sids, r.session), append(stids, r.step)
	}
	if err := s.addSessions(ctx, v, `WHERE session_id = ANY($1)`, ids); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return v, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT st.session_id, st.step_id, st.record_view FROM steps st
		JOIN unnest($1::text[], $2::text[]) AS r(session_id, step_id) USING (session_id, step_id)`, sids, stids)
	if err != nil {
		return nil, queryErr(err)
	}
	return v, addSteps(v, rows)
}

func (s *Store) addSessions(ctx context.Context, v *knowledge.Store, where string, a ...any) error {
	rows, err := s.pool.Query(ctx, `SELECT session_id, meta, COALESCE(meta_created_at, first_step_at) FROM sessions `+where, a...)
	if err != nil {
		return queryErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var meta []byte
		var created *time.Time
		if err := rows.Scan(&id, &meta, &created); err != nil {
			return queryErr(err)
		}
		m := parseMeta(meta)
		var c time.Time
		if created != nil {
			c = *created
		}
		v.AddSession(id, m, c)
	}
	return queryErr(rows.Err())
}

func parseMeta(b []byte) *knowledge.SessionMeta {
	if b == nil {
		return nil
	}
	m, err := knowledge.ParseSession(b)
	if err != nil {
		return nil
	}
	return m
}

// addSteps adds rows of (session_id, step_id, record_view) to v. The
// records are read as the part of them the view parses (record_view, see
// migration 0003): printing JSONB costs more than reading text, and
// parsing whole records was most of reading many (prior knowledge's
// 1,000 records are 4 MB whole). Parsers run beside the reader, one a
// CPU (at most maxParsers). The rows come in no set order, so the order
// they are added in is none either: the view sorts what it reads.
func addSteps(v *knowledge.Store, rows pgx.Rows) error {
	defer rows.Close()
	type rec struct {
		sid, stid string
		b         []byte
	}
	recs := make(chan rec, 64)
	var wg sync.WaitGroup
	var once sync.Once
	var parseErr error
	for range min(runtime.GOMAXPROCS(0), maxParsers) {
		wg.Go(func() {
			for r := range recs {
				if err := v.AddStep(r.sid, r.stid, r.b); err != nil {
					once.Do(func() { parseErr = err })
				}
			}
		})
	}
	var err error
	for rows.Next() {
		var r rec
		if err = rows.Scan(&r.sid, &r.stid, &r.b); err != nil {
			break
		}
		recs <- r
	}
	close(recs)
	wg.Wait()
	if err != nil {
		return queryErr(err)
	}
	if err := rows.Err(); err != nil {
		return queryErr(err)
	}
	return parseErr
}

// maxParsers bounds the goroutines addSteps parses records in.
const maxParsers = 4

func queryErr(err error) error {
	if err == nil {
		return nil
	}
	return unreachable(err)
}

func (s *Store) refs(ctx context.Context, sql string, a args) ([]stepRef, error) {
	rows, err := s.pool.Query(ctx, sql, a...)
	if err != nil {
		return nil, queryErr(err)
	}
	defer rows.Close()
	var out []stepRef
	for rows.Next() {
		var r stepRef
		if err := rows.Scan(&r.session, &r.step); err != nil {
			return nil, queryErr(err)
		}
		out = append(out, r)
	}
	return out, queryErr(rows.Err())
}

// Last answers mm_knowledge_last: the n newest steps by the ts index.
func (s *Store) Last(ctx context.Context, current string, q knowledge.LastQuery) (*knowledge.LastResult, error) {
	n := q.N
	if n <= 0 {
		n = knowledge.DefaultLastN
	}
	now := s.now()
	var a args
	conds, ok, err := s.sessionConds(&a, q.Scope.OrDefault(knowledge.CurrentScope), current, q.Filters, now)
	if err != nil {
		return nil, err
	}
	var refs []stepRef
	if ok {
		conds = append(conds, "st.repo = $1")
		if sc := screenOf(q.Filters); sc != "" {
			conds = append(conds, "st.screen = "+a.add(sc))
		}
		refs, err = s.refs(ctx, `SELECT st.session_id, st.step_id FROM steps st JOIN sessions se USING (session_id)
			WHERE `+strings.Join(conds, " AND ")+` ORDER BY st.ts DESC, st.step_id DESC LIMIT `+a.add(n), a)
		if err != nil {
			return nil, err
		}
	}
	v, err := s.view(ctx, now, refs, nil)
	if err != nil {
		return nil, err
	}
	return v.Last(ctx, current, q)
}

// Search answers mm_knowledge_search: the candidate steps come from the
// trigram index (and the sessions whose tags or goal match), PostgreSQL
// scores them as the file store does and keeps the best; the view renders
// them.
func (s *Store) Search(ctx context.Context, current string, q knowledge.SearchQuery) (*knowledge.SearchResult, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = knowledge.DefaultSearchLimit
	}
	now := s.now()
	scope := q.Scope.OrDefault(knowledge.AllScope)
	var a args
	conds, ok, err := s.sessionConds(&a, scope, current, q.Filters, now)
	if err != nil {
		return nil, err
	}
	tokens := knowledge.QueryTokens(q.Query)
	var refs []stepRef
	if ok && len(tokens) > 0 {
		sql := s.searchSQL(&a, conds, scope.Kind == knowledge.ScopeAll, tokens, screenOf(q.Filters), now, limit)
		if refs, err = s.refs(ctx, sql, a); err != nil {
			return nil, err
		}
	}
	v, err := s.view(ctx, now, refs, nil)
	if err != nil {
		return nil, err
	}
	return v.Search(ctx, current, q)
}

// searchWindow bounds the candidates a search ranks: the newest
// searchWindow steps whose own strings match a token, and the newest
// searchWindow steps of sessions whose tags or goal match one. Below it
// the ranking is exhaustive, as the file store's; above it the best of
// the newest candidates are returned (a token as common as "send" matches
// most steps of a large store, and ranking them all is not a 20 ms query).
const searchWindow = 300

// searchSessions bounds the sessions whose tags or goal match a search
// that are ranked (the most recently active ones); of each, its newest
// steps up to the search's limit (its steps tie on the session's score).
const searchSessions = 15

// searchSQL selects the best steps of a search. all says the sessions
// are not one session's, conds are their conditions.
func (s *Store) searchSQL(a *args, conds []string, all bool, tokens []string, screen string, now time.Time, limit int) string {
	w := knowledge.Weights
	var ss, sm, smAny, pts, pats, cover, psum []string
	for i, tok := range tokens {
		t := a.add(tok)
		ss = append(ss, fmt.Sprintf("%d*(strpos(se.s_flow, %s) > 0)::int + %d*(%s = ANY(se.goal_words))::int + %d*(strpos(se.s_tags, %s) > 0)::int",
			w.FlowTag, t, w.Goal, t, w.Tag, t))
		m := fmt.Sprintf("(strpos(se.s_flow, %s) > 0 OR %s = ANY(se.goal_words) OR strpos(se.s_tags, %s) > 0)", t, t, t)
		sm = append(sm, m+fmt.Sprintf(" AS sm%d", i))
		smAny = append(smAny, m)
		pts = append(pts, fmt.Sprintf(`%d*(strpos(st.s_tool, %s) > 0)::int + %d*(strpos(st.s_screen, %s) > 0)::int
			+ %d*(%s = ANY(st.target_words))::int + %d*(strpos(st.s_selector, %s) > 0)::int
			+ %d*(strpos(st.s_labels, %s) > 0)::int + %d*(%s = ANY(st.testid_words))::int
			+ %d*(strpos(st.s_a11y, %s) > 0)::int AS p%d`,
			w.Tool, t, w.Screen, t, w.TargetTestID, t, w.TargetSelector, t, w.Label, t, w.TestID, t, w.A11y, t, i))
		pats = append(pats, "%"+tok+"%")
		cover = append(cover, fmt.Sprintf("(p%d > 0 OR sm%d)::int", i, i))
		psum = append(psum, fmt.Sprintf("p%d", i))
	}
	// The steps of the sessions that pass the scope and filters: a join
	// (for one session, its steps come from the session's index). For
	// all sessions filtered by tags, branch or time, a hashed set of the
	// sessions that pass instead (IS TRUE keeps it from becoming a join),
	// tested before the words: most of the newest steps fail the filter,
	// and the test on the words is the costly one.
	from, where := "steps st JOIN sessions se USING (session_id)", strings.Join(conds, " AND ")+" AND st.repo = $1"
	if all && len(conds) > 1 {
		from, where = "steps st", "st.repo = $1 AND (st.session_id IN (SELECT se.session_id FROM sessions se WHERE "+
			strings.Join(conds, " AND ")+")) IS TRUE"
	}
	if screen != "" {
		where += " AND st.screen = " + a.add(screen)
	}
	order := " ORDER BY st.ts DESC, st.step_id DESC LIMIT " + strconv.Itoa(searchWindow)
	nowP := a.add(now)
	pa := a.add(pats)
	stepWhere := "st.repo = $1"
	if screen != "" {
		stepWhere += " AND st.screen = " + a.add(screen)
	}
	lim := a.add(limit)
	// The candidates are picked by their ids first (a step found both
	// ways once), then scored once each. The matching sessions come from
	// their trigram index, or from their activity index for a word most
	// sessions hold (a session without steps adds no candidate, so it is
	// left out rather than sorted last).
	return `WITH ms AS MATERIALIZED (
		SELECT se.session_id FROM sessions se WHERE ` + strings.Join(conds, " AND ") + `
			AND mmcp_session_search(se.s_flow, se.s_tags, se.goal_words) LIKE ANY(` + pa + `)
			AND (` + strings.Join(smAny, " OR ") + `) AND se.last_step_at IS NOT NULL
		ORDER BY se.last_step_at DESC LIMIT ` + strconv.Itoa(searchSessions) + `
	), c AS MATERIALIZED (
		(SELECT st.session_id, st.step_id FROM ` + from + `
			WHERE ` + where + ` AND mmcp_search(st.s_tool, st.s_screen, st.s_selector, st.s_labels, st.s_a11y, st.target_words, st.testid_words)
				LIKE ANY(` + pa + `)` + order + `)
		UNION
		SELECT st.session_id, st.step_id FROM ms CROSS JOIN LATERAL (SELECT st.session_id, st.step_id FROM steps st
			WHERE st.session_id = ms.session_id AND ` + stepWhere + `
			ORDER BY st.ts DESC, st.step_id DESC LIMIT ` + lim + `) st
	), p AS MATERIALIZED (
		SELECT st.session_id, st.step_id, st.ts, COALESCE(se.meta_created_at, se.first_step_at) AS created,
			` + strings.Join(ss, " + ") + ` AS sscore, ` + strings.Join(sm, ", ") + `, ` + strings.Join(pts, ", ") + `
		FROM c CROSS JOIN LATERAL (SELECT st.session_id, st.step_id, st.ts, st.s_tool, st.s_screen, st.target_words, st.s_selector,
				st.s_labels, st.testid_words, st.s_a11y || '' AS s_a11y FROM steps st
			WHERE st.session_id = c.session_id AND st.step_id = c.step_id OFFSET 0) st
		JOIN sessions se ON se.session_id = st.session_id
	), scored AS (
		SELECT session_id, step_id, ts, ` + strings.Join(psum, " + ") + ` + sscore AS score,
			CASE WHEN ` + nowP + ` - created < interval '24 hours' THEN ` + strconv.Itoa(w.Fresh) + `
				WHEN ` + nowP + ` - created < interval '72 hours' THEN ` + strconv.Itoa(w.Recent) + ` ELSE 0 END
			+ ` + strconv.Itoa(w.CoverageMax) + `*(` + strings.Join(cover, " + ") + `)/` + strconv.Itoa(len(tokens)) + ` AS bonus
		FROM p
	)
	SELECT session_id, step_id FROM scored WHERE score > 0
	ORDER BY score + bonus DESC, ts DESC, step_id DESC
	LIMIT ` + a.add(2*limit)
}

// Summarize answers mm_knowledge_summarize from the session's steps.
func (s *Store) Summarize(ctx context.Context, current string, q knowledge.SummarizeQuery) (*knowledge.SummarizeResult, error) {
	id, err := knowledge.SummarizeTarget(current, q)
	if err != nil {
		return nil, err
	}
	v := knowledge.NewView(s.now())
	rows, err := s.pool.Query(ctx, `SELECT session_id, step_id, record_view FROM steps WHERE session_id = $1 AND repo = $2`, id, s.repo)
	if err != nil {
		return nil, queryErr(err)
	}
	if err := addSteps(v, rows); err != nil {
		return nil, err
	}
	return v.Summarize(ctx, "", knowledge.SummarizeQuery{SessionID: id})
}

// Sessions answers mm_knowledge_sessions by the sessions' creation index.
func (s *Store) Sessions(ctx context.Context, q knowledge.SessionsQuery) (*knowledge.SessionsResult, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = knowledge.DefaultSessionsLimit
	}
	var a args
	conds, ok, err := s.sessionConds(&a, knowledge.AllScope, "", q.Filters, s.now())
	if err != nil {
		return nil, err
	}
	if !ok {
		return &knowledge.SessionsResult{Sessions: []knowledge.SessionSummary{}}, nil
	}
	conds = append(conds, "(se.meta IS NOT NULL OR se.first_step_at IS NOT NULL)")
	if sc := screenOf(q.Filters); sc != "" {
		conds = append(conds, "EXISTS (SELECT 1 FROM steps st WHERE st.session_id = se.session_id AND st.screen = "+a.add(sc)+")")
	}
	rows, err := s.pool.Query(ctx, `SELECT se.session_id, se.meta, COALESCE(se.meta_created_at, se.first_step_at) AS created
		FROM sessions se WHERE `+strings.Join(conds, " AND ")+`
		ORDER BY created DESC NULLS LAST, se.session_id LIMIT `+a.add(limit), a...)
	if err != nil {
		return nil, queryErr(err)
	}
	defer rows.Close()
	res := &knowledge.SessionsResult{Sessions: []knowledge.SessionSummary{}}
	for rows.Next() {
		var id string
		var meta []byte
		var created *time.Time
		if err := rows.Scan(&id, &meta, &created); err != nil {
			return nil, queryErr(err)
		}
		var c time.Time
		if created != nil {
			c = *created
		}
		res.Sessions = append(res.Sessions, knowledge.SummaryOf(id, parseMeta(meta), c))
	}
	return res, queryErr(rows.Err())
}

// priorMaxSessions is how many recent sessions prior knowledge reads, as
// the file store.
const priorMaxSessions = 20

// PriorKnowledge answers mm_describe_screen's priorKnowledge: the
// candidate sessions come from the sessions' activity index, and the view
// scores their steps.
func (s *Store) PriorKnowledge(ctx context.Context, current string, q knowledge.PriorQuery) (*knowledge.PriorKnowledge, error) {
	window := q.WindowHours
	if window <= 0 {
		window = knowledge.DefaultPriorWindowHours
	}
	now := s.now()
	tags := q.FlowTags
	if len(tags) == 0 && current != "" {
		var meta []byte
		err := s.pool.QueryRow(ctx, `SELECT meta FROM sessions WHERE session_id = $1`, current).Scan(&meta)
		if err != nil && err != pgx.ErrNoRows {
			return nil, queryErr(err)
		}
		if m := parseMeta(meta); m != nil {
			tags = m.FlowTags
		}
	}
	a := args{s.repo, current, now.Add(-time.Duration(window) * time.Hour)}
	where := `se.repo = $1 AND se.session_id <> $2 AND se.last_step_at IS NOT NULL
		AND GREATEST(COALESCE(se.meta_created_at, se.first_step_at), se.last_step_at) >= $3`
	if len(tags) > 0 {
		known := withoutNUL(tags)
		if len(known) == 0 {
			return nil, nil // only tags no session has
		}
		where += " AND se.flow_tags && " + a.add(known)
	}
	if ex := withoutNUL(q.Exclude); len(ex) > 0 {
		where += " AND NOT (se.session_id = ANY(" + a.add(ex) + "))"
	}
	ids, err := s.ids(ctx, `SELECT se.session_id FROM sessions se WHERE `+where+`
		ORDER BY GREATEST(COALESCE(se.meta_created_at, se.first_step_at), se.last_step_at) DESC, se.session_id
		LIMIT `+strconv.Itoa(priorMaxSessions), a)
	if err != nil {
		return nil, err
	}
	v := knowledge.NewView(now)
	if len(ids) == 0 {
		return nil, nil
	}
	if err := s.addSessions(ctx, v, `WHERE session_id = ANY($1)`, ids); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT session_id, step_id, record_view FROM steps WHERE session_id = ANY($1)`, ids)
	if err != nil {
		return nil, queryErr(err)
	}
	if err := addSteps(v, rows); err != nil {
		return nil, err
	}
	q.FlowTags = tags
	return v.PriorKnowledge(ctx, current, q)
}

func (s *Store) ids(ctx context.Context, sql string, a args) ([]string, error) {
	rows, err := s.pool.Query(ctx, sql, a...)
	if err != nil {
		return nil, queryErr(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, queryErr(err)
}
