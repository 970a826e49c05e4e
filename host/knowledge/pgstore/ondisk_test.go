package pgstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// recordTwo writes a session with two steps into s.
func recordTwo(t *testing.T, s *knowledge.Store, sid string) {
	now := time.Now()
	session(t, s, sid, now.Add(-time.Minute), "Send ETH", []string{"send"}, nil, "main")
	record(t, s, step(sid, now.Add(-50*time.Second), "mm_click", "home", "eth-overview-send", true, "eth-overview-send"))
	record(t, s, step(sid, now.Add(-40*time.Second), "mm_click", "send", "confirm-button", true, "confirm-button"))
}

// wantOwnSteps fails unless the queries of session sid answer its two
// steps.
func wantOwnSteps(t *testing.T, s *knowledge.Store, sid string) {
	t.Helper()
	ctx := context.Background()
	last, err := s.Last(ctx, sid, knowledge.LastQuery{Scope: knowledge.CurrentScope})
	if err != nil || len(last.Steps) != 2 {
		t.Fatalf("last {scope: current} = %+v, %v; want the session's 2 steps", last, err)
	}
	if last, err = s.Last(ctx, "", knowledge.LastQuery{Scope: knowledge.SessionScope(sid)}); err != nil || len(last.Steps) != 2 {
		t.Fatalf("last {scope: %s} = %+v, %v; want its 2 steps", sid, last, err)
	}
	sum, err := s.Summarize(ctx, sid, knowledge.SummarizeQuery{})
	if err != nil || sum.StepCount != 2 {
		t.Fatalf("summarize current = %+v, %v; want 2 steps", sum, err)
	}
	found, err := s.Search(ctx, sid, knowledge.SearchQuery{Query: "confirm", Scope: knowledge.CurrentScope})
	if err != nil || len(found.Matches) == 0 {
		t.Fatalf("search current = %+v, %v; want the confirm step", found, err)
	}
}

// TestReadOnlyUserAnswersQueuedRecords: with a database user that cannot
// write, the session's records wait in the outbox, and the queries of
// that session answer them from disk (not ok with 0 steps).
func TestReadOnlyUserAnswersQueuedRecords(t *testing.T) {
	srv := migrated(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{`CREATE ROLE reader LOGIN`, `GRANT USAGE ON SCHEMA public TO reader`, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader`} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	conn.Close(ctx)
	s, _ := sharedStore(t, strings.Replace(srv.URL(), "user=mmcp", "user=reader", 1))
	recordTwo(t, s, "mm-queued-1")
	waitFor(t, 10*time.Second, func() bool { n, err := s.Queued(); return n > 0 && err != nil })
	wantOwnSteps(t, s, "mm-queued-1")
	if n := count(t, srv.URL(), `SELECT count(*) FROM steps`); n != 0 {
		t.Fatalf("a read-only user wrote %d steps", n)
	}
}

// TestDatabaseDownAnswersOwnSession: while the database is down, the
// queries of a session this host wrote answer from disk; the queries of
// every session answer MM_KNOWLEDGE_ERROR (other hosts' records are only
// in the database).
func TestDatabaseDownAnswersOwnSession(t *testing.T) {
	srv := migrated(t)
	s, _ := sharedStore(t, srv.URL())
	recordTwo(t, s, "mm-down-1")
	flush(t, s, 10*time.Second)
	srv.Stop()
	t.Cleanup(srv.Start)
	wantOwnSteps(t, s, "mm-down-1")
	_, err := s.Sessions(context.Background(), knowledge.SessionsQuery{})
	testutil.WantCode(t, err, sdk.CodeKnowledgeError)
}
