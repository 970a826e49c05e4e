package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/internal/testutil/pgtest"
)

// benchStepsPerSession is the length of a generated session.
const benchStepsPerSession = 50

// gen generates realistic sessions: 20 visible testids and 25
// accessibility nodes a step, drawn from a vocabulary of wallet words (as
// host/knowledge's BenchmarkKnowledge), sessions created over the last 30
// days with one of 7 flow tags.
type gen struct {
	rng                   *rand.Rand
	words, testIDs, names []string
	now                   time.Time
}

func newGen(now time.Time) *gen {
	g := &gen{rng: rand.New(rand.NewPCG(1, 2)), now: now,
		words: []string{"send", "swap", "bridge", "account", "network", "token", "confirm", "cancel", "amount", "asset",
			"gas", "fee", "nonce", "settings", "security", "unlock", "import", "export", "receive", "buy", "activity", "nft",
			"menu", "picker", "list", "item", "button", "input", "modal", "footer", "header", "overview", "balance", "approve"}}
	for range 400 {
		g.testIDs = append(g.testIDs, g.pick()+"-"+g.pick()+"-"+g.pick())
		g.names = append(g.names, strings.ToUpper(g.pick()[:1])+g.pick()[1:]+" "+g.pick()+" "+g.pick())
	}
	return g
}

func (g *gen) pick() string { return g.words[g.rng.IntN(len(g.words))] }

var (
	benchRoles = []string{"button", "link", "textbox", "checkbox", "heading", "dialog", "menuitem", "tab"}
	benchTools = []string{"mm_describe_screen", "mm_click", "mm_click", "mm_type", "mm_wait_for", "mm_get_state", "mm_navigate"}
	benchFlows = []string{"send", "swap", "connect", "sign", "onboarding", "settings", "tx-confirmation"}
)

// session returns session si's session.json and its steps (file name,
// record JSON).
func (g *gen) session(si int) (knowledge.SessionMeta, [][2]string) {
	id := fmt.Sprintf("mm-bench-%07d", si)
	created := g.now.Add(-time.Duration(g.rng.IntN(30*24*60)) * time.Minute)
	meta := knowledge.SessionMeta{SchemaVersion: 1, SessionID: id, CreatedAt: created.UTC().Format(time.RFC3339Nano),
		Goal: "run the " + g.pick() + " " + g.pick() + " flow", FlowTags: []string{benchFlows[si%len(benchFlows)]}, Tags: []string{"bench"},
		Git: &knowledge.GitInfo{Branch: []string{"main", "develop", "feat/x"}[si%3], Commit: "abc"}, Launch: knowledge.LaunchInfo{StateMode: "default"}}
	var steps [][2]string
	for k := range benchStepsPerSession {
		at := created.Add(time.Duration(k) * 3 * time.Second)
		tool := benchTools[g.rng.IntN(len(benchTools))]
		target := ""
		if tool == "mm_click" || tool == "mm_type" || tool == "mm_wait_for" {
			target = g.testIDs[g.rng.IntN(len(g.testIDs))]
		}
		r := step(id, at, tool, observation.Screens[g.rng.IntN(len(observation.Screens))], target, g.rng.IntN(10) > 0)
		r.Observation.State.CurrentURL = "chrome-extension://abc/home.html#/" + g.pick()
		for range 20 {
			r.Observation.TestIDs = append(r.Observation.TestIDs, observation.TestIDItem{TestID: g.testIDs[g.rng.IntN(len(g.testIDs))], Tag: "button", Text: g.pick(), Visible: true})
		}
		for n := range 25 {
			r.Observation.A11y.Nodes = append(r.Observation.A11y.Nodes, observation.A11yNode{Ref: fmt.Sprintf("e%d", n+1),
				Role: benchRoles[g.rng.IntN(len(benchRoles))], Name: g.names[g.rng.IntN(len(g.names))], Path: []string{"dialog"}})
		}
		r.SchemaVersion = 1
		b, _ := json.Marshal(r)
		steps = append(steps, [2]string{at.UTC().Format("20060102T150405.000Z") + "-" + tool + "-" + strconv.Itoa(k) + ".json", string(b)})
	}
	return meta, steps
}

// writeFiles writes sessions 0..n/benchStepsPerSession-1 as a file store.
func (g *gen) writeFiles(tb testing.TB, root string, n int) {
	for si := range n / benchStepsPerSession {
		meta, steps := g.session(si)
		mb, _ := json.Marshal(meta)
		dir := filepath.Join(root, meta.SessionID)
		if err := os.MkdirAll(filepath.Join(dir, "steps"), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "session.json"), mb, 0o600); err != nil {
			tb.Fatal(err)
		}
		for _, st := range steps {
			if err := os.WriteFile(filepath.Join(dir, "steps", st[0]), []byte(st[1]), 0o600); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// copyDB loads n generated steps into the database with COPY, the
// indexes dropped during the load and built after it.
func (g *gen) copyDB(tb testing.TB, url string, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	var idx []string
	rows, _ := conn.Query(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename IN ('steps','sessions') AND indexname NOT LIKE '%_pkey'`)
	idx, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	for _, def := range idx {
		name := strings.Fields(def)[2]
		if _, err := conn.Exec(ctx, "DROP INDEX "+name); err != nil {
			tb.Fatal(err)
		}
	}
	var sessRows, stepRows [][]any
	flush := func() {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"sessions"}, []string{"session_id", "repo", "branch", "commit_sha", "meta", "meta_created_at",
			"first_step_at", "last_step_at", "flow_tags", "tags", "s_flow", "s_tags", "goal_words"}, pgx.CopyFromRows(sessRows)); err != nil {
			tb.Fatal(err)
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"steps"}, []string{"session_id", "step_id", "repo", "branch", "ts", "tool", "screen", "ok",
			"error_code", "test_ids", "s_tool", "s_screen", "s_selector", "s_labels", "s_a11y", "target_words", "testid_words", "record"},
			pgx.CopyFromRows(stepRows)); err != nil {
			tb.Fatal(err)
		}
		sessRows, stepRows = sessRows[:0], stepRows[:0]
	}
	for si := range n / benchStepsPerSession {
		meta, steps := g.session(si)
		mb, _ := json.Marshal(meta)
		mf := knowledge.MetaFields(&meta)
		created, _ := knowledge.ParseTime(meta.CreatedAt)
		var first, last time.Time
		for i, st := range steps {
			f, err := knowledge.ParseStepFields([]byte(st[1]))
			if err != nil {
				tb.Fatal(err)
			}
			if i == 0 {
				first = f.Timestamp
			}
			last = f.Timestamp
			stepRows = append(stepRows, []any{meta.SessionID, st[0], repo, f.Branch, f.Timestamp, f.Tool, f.Screen, f.OK, f.ErrCode, f.TestIDs,
				f.LowTool, f.LowScreen, f.Selector, f.Labels, f.A11y, f.TargetWords, f.TestIDWords, st[1]})
		}
		sessRows = append(sessRows, []any{meta.SessionID, repo, meta.Git.Branch, meta.Git.Commit, string(mb), created, first, last,
			meta.FlowTags, meta.Tags, mf.FlowTags, mf.Tags, mf.GoalWords})
		if len(stepRows) >= 20000 {
			flush()
		}
	}
	flush()
	for _, def := range idx {
		if _, err := conn.Exec(ctx, def); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		tb.Fatal(err)
	}
}

// benchShapes are the knowledge tools' query shapes (each scope with its
// filters, and the tools' defaults) and mm_describe_screen's prior knowledge.
func benchShapes(current string, prior knowledge.PriorQuery) []struct {
	name string
	run  func(context.Context, *knowledge.Store) error
} {
	type shape = struct {
		name string
		run  func(context.Context, *knowledge.Store) error
	}
	search := func(q knowledge.SearchQuery) func(context.Context, *knowledge.Store) error {
		return func(ctx context.Context, s *knowledge.Store) error { _, err := s.Search(ctx, current, q); return err }
	}
	return []shape{
		{"search-send-flowtag-48h", search(knowledge.SearchQuery{Query: "send", Scope: knowledge.AllScope, Filters: &knowledge.Filters{FlowTag: "send", SinceHours: 48}})},
		{"search-send", search(knowledge.SearchQuery{Query: "send"})},
		{"search-confirm-send-amount", search(knowledge.SearchQuery{Query: "confirm send amount"})},
		{"search-no-match", search(knowledge.SearchQuery{Query: "zebra crossing"})},
		{"search-screen-home", search(knowledge.SearchQuery{Query: "click", Filters: &knowledge.Filters{Screen: "home"}})},
		{"search-session", search(knowledge.SearchQuery{Query: "confirm", Scope: knowledge.SessionScope(current)})},
		{"last-all", func(ctx context.Context, s *knowledge.Store) error {
			_, err := s.Last(ctx, current, knowledge.LastQuery{Scope: knowledge.AllScope})
			return err
		}},
		{"sessions-flowtag-send", func(ctx context.Context, s *knowledge.Store) error {
			_, err := s.Sessions(ctx, knowledge.SessionsQuery{Limit: 5, Filters: &knowledge.Filters{FlowTag: "send"}})
			return err
		}},
		{"summarize", func(ctx context.Context, s *knowledge.Store) error {
			_, err := s.Summarize(ctx, current, knowledge.SummarizeQuery{})
			return err
		}},
		{"prior-knowledge", func(ctx context.Context, s *knowledge.Store) error {
			_, err := s.PriorKnowledge(ctx, current, prior)
			return err
		}},
	}
}

// measure runs every shape b.N times and reports the median and p95
// latency of each in milliseconds.
func measure(b *testing.B, s *knowledge.Store, label, current string) {
	prior := knowledge.PriorQuery{Screen: "home", URL: "chrome-extension://abc/home.html#/send",
		TestIDs: []observation.TestIDItem{{TestID: "send-confirm-button"}, {TestID: "account-menu-list"}}}
	for _, sh := range benchShapes(current, prior) {
		b.Run(label+"/"+sh.name, func(b *testing.B) {
			ctx := context.Background()
			if err := sh.run(ctx, s); err != nil { // warm up
				b.Fatal(err)
			}
			var lat []time.Duration
			for b.Loop() {
				t := time.Now()
				if err := sh.run(ctx, s); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
			b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*95/100)]), "p95-ms")
		})
	}
}

// BenchmarkSearch measures the knowledge queries on the shared store
// (MMCP_KNOWLEDGE_BENCH_STEPS steps, default 100,000; the figure
// is 1,000,000) and on the file store with 10,000 steps, median and p95
// per query shape. With MMCP_KNOWLEDGE_BENCH_PGDIR the database is kept in
// that directory and reused by the next run (see benchDB). See
// docs/knowledge-postgres.md for the command.
func BenchmarkSearch(b *testing.B) {
	n := 100_000
	if v := os.Getenv("MMCP_KNOWLEDGE_BENCH_STEPS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < benchStepsPerSession {
			b.Fatalf("MMCP_KNOWLEDGE_BENCH_STEPS %q: want a number of steps", v)
		}
	}
	now := time.Now()
	current := "mm-bench-0000000"

	files := fileStore(b)
	newGen(now).writeFiles(b, files.Root(), 10_000)
	files.SetNow(func() time.Time { return now })
	measure(b, files, "files-10k", current)

	url, genNow := benchDB(b, n, now)
	pg := openPG(b, url)
	pg.SetNow(func() time.Time { return genNow })
	shared := fileStore(b)
	if err := shared.SetShared(pg); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(shared.Close)
	measure(b, shared, "postgres-"+strconv.Itoa(n/1000)+"k", current)
}

// benchDB starts a server holding n generated steps and returns its URL
// and the clock the steps were generated against.
// Without MMCP_KNOWLEDGE_BENCH_PGDIR the server is new and removed at the
// end. With it, the server's data is kept in that directory: a run finding
// n steps generated there reuses them (migrated to this binary's schema),
// and returns the clock they were generated against, so every run
// queries the same records.
func benchDB(b *testing.B, n int, now time.Time) (string, time.Time) {
	dir := os.Getenv("MMCP_KNOWLEDGE_BENCH_PGDIR")
	if dir == "" {
		srv := migrated(b)
		generate(b, srv.URL(), n, now)
		return srv.URL(), now
	}
	srv := pgtest.StartKept(b, dir)
	ctx := context.Background()
	if _, err := pgstore.MigrateURL(ctx, srv.URL()); err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS mmcp_bench_generated (steps int NOT NULL, now timestamptz NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	var at time.Time
	err = conn.QueryRow(ctx, `SELECT now FROM mmcp_bench_generated WHERE steps = $1`, n).Scan(&at)
	switch {
	case err == nil:
		b.Logf("reusing %d generated steps in %s", n, dir)
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil { // a new migration's indexes
			b.Fatal(err)
		}
		return srv.URL(), at
	case err != pgx.ErrNoRows:
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `TRUNCATE steps, sessions, mmcp_bench_generated`); err != nil {
		b.Fatal(err)
	}
	generate(b, srv.URL(), n, now)
	if _, err := conn.Exec(ctx, `INSERT INTO mmcp_bench_generated VALUES ($1, $2)`, n, now); err != nil {
		b.Fatal(err)
	}
	return srv.URL(), now
}

// generate loads n generated steps into the database at url.
func generate(b *testing.B, url string, n int, now time.Time) {
	start := time.Now()
	newGen(now).copyDB(b, url, n)
	b.Logf("generated %d steps in %v", n, time.Since(start).Round(time.Second))
}
