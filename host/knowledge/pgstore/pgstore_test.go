package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// fixtures writes sessions of several kinds into s: tagged and untagged,
// old and new, with failures, selectors and accessibility names.
func fixtures(t *testing.T, s *knowledge.Store) {
	h := time.Hour
	session(t, s, "mm-send-1", t0.Add(-2*h), "Send ETH to a friend", []string{"send"}, []string{"smoke"}, "main")
	session(t, s, "mm-swap-1", t0.Add(-30*h), "Swap tokens", []string{"swap"}, []string{"nightly"}, "feat/swap")
	session(t, s, "mm-old-1", t0.Add(-100*h), "Unlock and look around", []string{"onboarding"}, nil, "main")
	at := func(base time.Duration, i int) time.Time { return t0.Add(base + time.Duration(i)*time.Minute) }
	for i, r := range []knowledge.StepRecord{
		step("mm-send-1", at(-2*h, 1), "mm_describe_screen", "home", "", true, "eth-overview-send", "account-menu"),
		step("mm-send-1", at(-2*h, 2), "mm_click", "home", "eth-overview-send", true, "eth-overview-send"),
		step("mm-send-1", at(-2*h, 3), "mm_type", "send", "ens-input", true, "ens-input", "confirm-button"),
		step("mm-send-1", at(-2*h, 4), "mm_click", "send", "confirm-button", false, "confirm-button"),
		step("mm-send-1", at(-2*h, 5), "mm_click", "send", "confirm-button", false, "confirm-button"),
		step("mm-send-1", at(-2*h, 6), "mm_click", "confirm-transaction", "page-container-footer-next", true, "page-container-footer-next"),
		step("mm-swap-1", at(-30*h, 1), "mm_click", "home", "token-overview-button-swap", true, "token-overview-button-swap", "eth-overview-send"),
		step("mm-swap-1", at(-30*h, 2), "mm_type", "swap", "prepare-swap-page-from-token-amount", true),
		step("mm-swap-1", at(-30*h, 3), "mm_click", "swap", "review-swap-button", true, "review-swap-button"),
		step("mm-old-1", at(-100*h, 1), "mm_type", "unlock", "unlock-password", true, "unlock-password", "unlock-submit"),
		step("mm-old-1", at(-100*h, 2), "mm_click", "unlock", "unlock-submit", true, "unlock-submit"),
		step("mm-nometa-1", at(-5*h, 1), "mm_navigate", "settings", "", true, "settings-general"),
		step("mm-nometa-1", at(-5*h, 2), "mm_click", "settings", "", true),
	} {
		if i == 7 {
			r.Tool.Target = &knowledge.Target{Selector: "input[name=amount]"}
			r.Tool.Input = map[string]any{"selector": "input[name=amount]", "text": "0.5"}
			r.Tool.TextKept = true
		}
		if i == 12 {
			r.Tool.Target = &knowledge.Target{A11yRef: "e3"}
			r.Observation.A11y.Nodes = []observation.A11yNode{{Ref: "e3", Role: "button", Name: "Advanced settings", Path: []string{}}}
		}
		if i == 0 {
			r.Observation.A11y.Nodes = []observation.A11yNode{{Ref: "e1", Role: "button", Name: "Send", Path: []string{}}}
		}
		record(t, s, r)
	}
}

// queries is the suite both backends answer.
var queries = []struct {
	name string
	run  func(ctx context.Context, s *knowledge.Store) (any, error)
}{}

func q(name string, run func(ctx context.Context, s *knowledge.Store) (any, error)) {
	queries = append(queries, struct {
		name string
		run  func(ctx context.Context, s *knowledge.Store) (any, error)
	}{name, run})
}

func search(query string, limit int, scope knowledge.Scope, f *knowledge.Filters, current string) func(context.Context, *knowledge.Store) (any, error) {
	return func(ctx context.Context, s *knowledge.Store) (any, error) {
		return s.Search(ctx, current, knowledge.SearchQuery{Query: query, Limit: limit, Scope: scope, Filters: f})
	}
}

func init() {
	all := knowledge.AllScope
	for _, text := range []string{"send", "confirm button", "swap", "unlock password", "home", "advanced", "settings general", "nothing-like-it", "the", "error-recovery", "amount", "transfer eth"} {
		q("search "+text, search(text, 0, knowledge.Scope{}, nil, ""))
	}
	q("search limit 2", search("click", 2, all, nil, ""))
	q("search flowTag send sinceHours 48", search("send", 0, all, &knowledge.Filters{FlowTag: "send", SinceHours: 48}, ""))
	q("search screen send", search("confirm", 0, all, &knowledge.Filters{Screen: "send"}, ""))
	q("search gitBranch main", search("click", 0, all, &knowledge.Filters{GitBranch: "main"}, ""))
	q("search tag nightly", search("swap", 0, all, &knowledge.Filters{Tag: "nightly"}, ""))
	q("search exclude", search("click", 0, all, &knowledge.Filters{Exclude: []string{"mm-send-1", "mm-swap-1"}}, ""))
	q("search current", search("click", 0, knowledge.CurrentScope, nil, "mm-swap-1"))
	q("search current none", search("click", 0, knowledge.CurrentScope, nil, ""))
	q("search session", search("click", 0, knowledge.SessionScope("mm-send-1"), nil, ""))
	q("search bad scope", search("click", 0, knowledge.SessionScope("../x"), nil, ""))
	last := func(n int, scope knowledge.Scope, f *knowledge.Filters, current string) func(context.Context, *knowledge.Store) (any, error) {
		return func(ctx context.Context, s *knowledge.Store) (any, error) {
			return s.Last(ctx, current, knowledge.LastQuery{N: n, Scope: scope, Filters: f})
		}
	}
	q("last all", last(0, all, nil, ""))
	q("last 3 all", last(3, all, nil, ""))
	q("last current", last(0, knowledge.Scope{}, nil, "mm-send-1"))
	q("last screen swap", last(0, all, &knowledge.Filters{Screen: "swap"}, ""))
	q("last sinceHours 10", last(0, all, &knowledge.Filters{SinceHours: 10}, ""))
	q("last exclude", last(0, all, &knowledge.Filters{Exclude: []string{"mm-send-1"}}, ""))
	sum := func(sq knowledge.SummarizeQuery, current string) func(context.Context, *knowledge.Store) (any, error) {
		return func(ctx context.Context, s *knowledge.Store) (any, error) { return s.Summarize(ctx, current, sq) }
	}
	q("summarize session", sum(knowledge.SummarizeQuery{Scope: knowledge.SessionScope("mm-send-1")}, ""))
	q("summarize current", sum(knowledge.SummarizeQuery{}, "mm-nometa-1"))
	q("summarize legacy id", sum(knowledge.SummarizeQuery{SessionID: "mm-swap-1"}, ""))
	q("summarize all", sum(knowledge.SummarizeQuery{Scope: all}, ""))
	q("summarize none", sum(knowledge.SummarizeQuery{}, ""))
	q("summarize unknown", sum(knowledge.SummarizeQuery{SessionID: "mm-unknown"}, ""))
	sessions := func(limit int, f *knowledge.Filters) func(context.Context, *knowledge.Store) (any, error) {
		return func(ctx context.Context, s *knowledge.Store) (any, error) {
			return s.Sessions(ctx, knowledge.SessionsQuery{Limit: limit, Filters: f})
		}
	}
	q("sessions", sessions(0, nil))
	q("sessions limit 2", sessions(2, nil))
	q("sessions flowTag send", sessions(5, &knowledge.Filters{FlowTag: "send"}))
	q("sessions screen settings", sessions(0, &knowledge.Filters{Screen: "settings"}))
	q("sessions branch main", sessions(0, &knowledge.Filters{GitBranch: "main"}))
	q("sessions exclude", sessions(0, &knowledge.Filters{Exclude: []string{"mm-send-1"}}))
	prior := func(current string, pq knowledge.PriorQuery) func(context.Context, *knowledge.Store) (any, error) {
		return func(ctx context.Context, s *knowledge.Store) (any, error) { return s.PriorKnowledge(ctx, current, pq) }
	}
	q("prior send screen", prior("", knowledge.PriorQuery{Screen: "send", URL: "chrome-extension://abc/home.html#/send",
		TestIDs: []observation.TestIDItem{{TestID: "confirm-button"}, {TestID: "ens-input"}}}))
	q("prior home from a send session", prior("mm-current", knowledge.PriorQuery{Screen: "home", FlowTags: []string{"send"},
		TestIDs: []observation.TestIDItem{{TestID: "eth-overview-send"}}, A11yNodes: []observation.A11yNode{{Role: "button", Name: "Send"}}}))
	q("prior window 200h unlock", prior("", knowledge.PriorQuery{Screen: "unlock", WindowHours: 200,
		TestIDs: []observation.TestIDItem{{TestID: "unlock-submit"}}}))
	q("prior current excluded", prior("mm-send-1", knowledge.PriorQuery{Screen: "send"}))
	q("prior another client's excluded", prior("", knowledge.PriorQuery{Screen: "send", Exclude: []string{"mm-send-1"}}))
	q("prior nothing", prior("", knowledge.PriorQuery{Screen: "home", FlowTags: []string{"sign"}}))

	// A NUL byte (which PostgreSQL text cannot hold) in a filter, a scope
	// or a session id matches nothing, as in the file store: never an
	// error.
	const nul = "se\x00nd"
	for name, f := range map[string]*knowledge.Filters{"flowTag": {FlowTag: nul}, "tag": {Tag: nul}, "screen": {Screen: nul},
		"gitBranch": {GitBranch: nul}, "exclude": {Exclude: []string{nul}}} {
		q("NUL in filter "+name+": last", last(0, all, f, ""))
		q("NUL in filter "+name+": search", search("click", 0, all, f, ""))
		q("NUL in filter "+name+": sessions", sessions(0, f))
	}
	q("NUL in a session scope: search", search("click", 0, knowledge.SessionScope("mm-send\x00-1"), nil, ""))
	q("NUL in a session scope: last", last(0, knowledge.SessionScope("mm-send\x00-1"), nil, ""))
	q("NUL in a session scope: summarize", sum(knowledge.SummarizeQuery{Scope: knowledge.SessionScope("mm-send\x00-1")}, ""))
	q("NUL in a legacy session id: summarize", sum(knowledge.SummarizeQuery{SessionID: "mm-send-1\x00"}, ""))
	q("NUL in prior flow tags", prior("", knowledge.PriorQuery{Screen: "send", FlowTags: []string{nul}}))
	q("NUL in one of the prior flow tags", prior("", knowledge.PriorQuery{Screen: "send", FlowTags: []string{nul, "send"},
		TestIDs: []observation.TestIDItem{{TestID: "confirm-button"}}}))
	q("NUL in prior exclude", prior("", knowledge.PriorQuery{Screen: "send", Exclude: []string{nul}}))
}

// TestSameAnswersAsFileStore runs one query suite against the file store
// and against PostgreSQL holding the same records: every answer (and
// every error) is the same.
func TestSameAnswersAsFileStore(t *testing.T) {
	srv := migrated(t)
	ctx := context.Background()
	files := fileStore(t)
	fixtures(t, files)
	shared, pg := sharedStore(t, srv.URL())
	if n, err := knowledge.Push(ctx, files.Root(), pg); err != nil || n != 16 {
		t.Fatalf("push = %d, %v; want 16 files", n, err)
	}
	now := func() time.Time { return t0 }
	files.SetNow(now)
	pg.SetNow(now)
	var full atomic.Int64 // answers with something in them
	for _, tc := range queries {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := tc.run(ctx, files)
			got, gotErr := tc.run(ctx, shared)
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
				t.Fatalf("error: file store %v, postgres %v", wantErr, gotErr)
			}
			wb, _ := json.MarshalIndent(want, "", " ")
			gb, _ := json.MarshalIndent(got, "", " ")
			if string(wb) != string(gb) {
				t.Errorf("file store:\n%s\npostgres:\n%s", wb, gb)
			}
			if wantErr == nil && string(wb) != "null" && !strings.Contains(string(wb), "[]") {
				full.Add(1)
			}
		})
	}
	if full.Load() < 25 {
		t.Errorf("only %d of %d answers hold anything: the suite compares too little", full.Load(), len(queries))
	}
	// Pushing again stores nothing twice.
	if _, err := knowledge.Push(ctx, files.Root(), pg); err != nil {
		t.Fatal(err)
	}
	if n := count(t, srv.URL(), `SELECT count(*) FROM steps`); n != 13 {
		t.Errorf("steps after a second push = %d, want 13", n)
	}
}

func count(t testing.TB, url, sql string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTwoHostsShareKnowledge: a session recorded by host A (its own
// artifacts dir) is found by host B's search and shows in B's prior
// knowledge for the same screen.
func TestTwoHostsShareKnowledge(t *testing.T) {
	srv := migrated(t)
	ctx := context.Background()
	a, _ := sharedStore(t, srv.URL())
	b, _ := sharedStore(t, srv.URL())
	now := time.Now()
	session(t, a, "mm-host-a", now.Add(-time.Minute), "Send ETH", []string{"send"}, nil, "main")
	record(t, a, step("mm-host-a", now.Add(-50*time.Second), "mm_click", "home", "eth-overview-send", true, "eth-overview-send"))
	record(t, a, step("mm-host-a", now.Add(-40*time.Second), "mm_click", "send", "confirm-button", true, "confirm-button"))
	flush(t, a, 10*time.Second)

	res, err := b.Search(ctx, "mm-host-b", knowledge.SearchQuery{Query: "confirm", Scope: knowledge.AllScope})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) == 0 || res.Matches[0].SessionID != "mm-host-a" {
		t.Fatalf("B's search found %+v, want host A's session", res.Matches)
	}
	pk, err := b.PriorKnowledge(ctx, "mm-host-b", knowledge.PriorQuery{Screen: "send", TestIDs: []observation.TestIDItem{{TestID: "confirm-button"}}})
	if err != nil {
		t.Fatal(err)
	}
	if pk == nil || len(pk.SimilarSteps) == 0 || pk.SimilarSteps[0].SessionID != "mm-host-a" {
		t.Fatalf("B's prior knowledge = %+v, want host A's step", pk)
	}
	if len(pk.SuggestedNextActions) == 0 || pk.SuggestedNextActions[0].PreferredTarget.Value != "confirm-button" {
		t.Errorf("suggested = %+v, want confirm-button", pk.SuggestedNextActions)
	}
}

// TestConcurrentWritersAndOutage: 8 stores write 1,000 steps each at once
// while the database is stopped and started again: every step arrives
// exactly once and the queues drain.
func TestConcurrentWritersAndOutage(t *testing.T) {
	srv := migrated(t)
	const writers, perWriter = 8, 1000
	stores := make([]*knowledge.Store, writers)
	for i := range stores {
		stores[i], _ = sharedStore(t, srv.URL())
	}
	var written atomic.Int64
	var wg sync.WaitGroup
	start := time.Now().Add(-time.Hour)
	for w, s := range stores {
		wg.Go(func() {
			sid := fmt.Sprintf("mm-writer-%d", w)
			for i := range perWriter {
				r := step(sid, start.Add(time.Duration(i)*time.Millisecond), "mm_click", "home", "button-"+fmt.Sprint(i%50), true, "button-"+fmt.Sprint(i%50))
				if _, err := s.Record(r); err != nil {
					t.Error(err)
					return
				}
				written.Add(1)
			}
		})
	}
	// Stop the database once some rows arrived, start it again once more
	// steps were written meanwhile.
	waitFor(t, 30*time.Second, func() bool { return count(t, srv.URL(), `SELECT count(*) FROM steps`) >= 1000 })
	srv.Stop()
	down := written.Load()
	waitFor(t, 30*time.Second, func() bool { return written.Load() >= min(down+2000, writers*perWriter) })
	queued := 0
	for _, s := range stores {
		n, _ := s.Queued()
		queued += n
	}
	srv.Start()
	wg.Wait()
	if queued == 0 {
		t.Error("no record was queued while the database was down")
	}
	for _, s := range stores {
		flush(t, s, 30*time.Second)
		if n, err := s.Queued(); n != 0 || err != nil {
			t.Errorf("queued after flush = %d, %v", n, err)
		}
	}
	if n := count(t, srv.URL(), `SELECT count(*) FROM steps`); n != writers*perWriter {
		t.Errorf("steps = %d, want %d", n, writers*perWriter)
	}
	for w := range writers {
		if n := count(t, srv.URL(), `SELECT count(*) FROM steps WHERE session_id = $1`, fmt.Sprintf("mm-writer-%d", w)); n != perWriter {
			t.Errorf("writer %d: %d steps, want %d", w, n, perWriter)
		}
	}
}

func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(10 * time.Millisecond) // poll interval, bounded by the deadline
	}
}

// TestSecretNeverReachesDatabase: a password typed in a recorded session
// (and echoed by the error) is nowhere in the database.
func TestSecretNeverReachesDatabase(t *testing.T) {
	srv := migrated(t)
	s, _ := sharedStore(t, srv.URL())
	const secret = "correct-horse-battery-staple-42"
	session(t, s, "mm-secret-1", time.Now(), "Unlock the wallet", []string{"onboarding"}, nil, "main")
	r := step("mm-secret-1", time.Now(), "mm_type", "unlock", "unlock-password", false, "unlock-password")
	r.Tool.Input = map[string]any{"testId": "unlock-password", "text": secret}
	r.Tool.Withheld = []string{secret}
	r.Outcome.Error = &knowledge.OutcomeError{Code: sdk.CodeTypeFailed, Message: "could not type " + secret + " into the field"}
	record(t, s, r)
	flush(t, s, 10*time.Second)
	if n := count(t, srv.URL(), `SELECT count(*) FROM steps`); n != 1 {
		t.Fatalf("steps = %d, want 1", n)
	}
	if n := count(t, srv.URL(), `SELECT count(*) FROM (SELECT st::text AS row FROM steps st UNION ALL SELECT se::text FROM sessions se) x
		WHERE x.row LIKE '%' || $1 || '%'`, secret); n != 0 {
		t.Errorf("the secret is in %d rows of the database", n)
	}
}

// TestSchemaChecks: a database not migrated, or migrated by a newer mmcp,
// is refused with MM_KNOWLEDGE_ERROR; a password in the URL with
// MM_INVALID_CONFIG.
func TestSchemaChecks(t *testing.T) {
	srv := migrated(t)
	ctx := context.Background()
	if v, err := pgstore.Check(ctx, srv.URL()); err != nil || v != pgstore.SchemaVersion() {
		t.Fatalf("check = %d, %v", v, err)
	}
	if applied, err := pgstore.MigrateURL(ctx, srv.URL()); err != nil || len(applied) != 0 {
		t.Fatalf("second migrate applied %v, %v", applied, err)
	}
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO mmcp_schema_migrations (version, name) VALUES (9999, 'future')`); err != nil {
		t.Fatal(err)
	}
	_, err = pgstore.Open(ctx, srv.URL(), repo)
	wantCode(t, err, sdk.CodeKnowledgeError)
	if !strings.Contains(err.Error(), "upgrade mmcp") {
		t.Errorf("error %q does not say to upgrade", err)
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE fresh`); err != nil {
		t.Fatal(err)
	}
	_, err = pgstore.Open(ctx, strings.Replace(srv.URL(), "dbname=postgres", "dbname=fresh", 1), repo)
	wantCode(t, err, sdk.CodeKnowledgeError)
	if !strings.Contains(err.Error(), "mmcp knowledge migrate") {
		t.Errorf("error %q does not say to migrate", err)
	}
	for _, u := range []string{"postgres://u:hunter2@db.example/k", "host=db password=hunter2 dbname=k", "postgres://u@db/k?password=hunter2"} {
		_, err := pgstore.ParseURL(u)
		wantCode(t, err, sdk.CodeInvalidConfig)
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error %q shows the password", err)
		}
	}
}
