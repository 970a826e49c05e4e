package pgstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/internal/testutil/pgtest"
	"github.com/mmcp-dev/mmcp/sdk"
)

// t0 is "now" for tests that fix the clock.
var t0 = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

const repo = "github.com/example/wallet"

// migrated starts a server and migrates its database.
func migrated(t testing.TB) *pgtest.Server {
	t.Helper()
	srv := pgtest.Start(t)
	if _, err := pgstore.MigrateURL(context.Background(), srv.URL()); err != nil {
		t.Fatal(err)
	}
	return srv
}

func openPG(t testing.TB, url string) *pgstore.Store {
	t.Helper()
	pg, err := pgstore.Open(context.Background(), url, repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	return pg
}

// fileStore opens a file store in a temporary artifacts dir.
func fileStore(t testing.TB) *knowledge.Store {
	t.Helper()
	s, err := knowledge.Open(filepath.Join(t.TempDir(), "llm-knowledge"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sharedStore opens a file store (the outbox) in its own artifacts dir,
// answering from and sending to a new connection to url.
func sharedStore(t testing.TB, url string) (*knowledge.Store, *pgstore.Store) {
	t.Helper()
	pg := openPG(t, url)
	s := fileStore(t)
	if err := s.SetShared(pg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, pg
}

func flush(t testing.TB, s *knowledge.Store, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

var toolClass = map[string]string{
	"mm_describe_screen": knowledge.LabelDiscovery, "mm_navigate": knowledge.LabelNavigation,
	"mm_click": knowledge.LabelInteraction, "mm_type": knowledge.LabelInteraction,
}

// step builds a record on screen with visible testids; target is a testid.
func step(sid string, at time.Time, tool, screen, target string, ok bool, testIDs ...string) knowledge.StepRecord {
	r := knowledge.StepRecord{
		SessionID: sid,
		Timestamp: at.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Tool:      knowledge.ToolCall{Name: tool},
		Outcome:   knowledge.Outcome{OK: ok},
		Observation: observation.Observation{
			State: observation.State{IsLoaded: true, CurrentURL: "chrome-extension://abc/home.html#/" + screen, ExtensionID: "abc", IsUnlocked: true, CurrentScreen: screen},
		},
	}
	if target != "" {
		r.Tool.Target = &knowledge.Target{TestID: target}
		r.Tool.Input = map[string]any{"testId": target}
	}
	if !ok {
		r.Outcome.Error = &knowledge.OutcomeError{Code: sdk.CodeTargetNotFound, Message: "element not found: " + target}
	}
	for _, id := range testIDs {
		r.Observation.TestIDs = append(r.Observation.TestIDs, observation.TestIDItem{TestID: id, Tag: "button", Visible: true})
	}
	r.Labels = knowledge.Labels(toolClass[tool], r.Tool.Target, ok)
	return r
}

func record(t testing.TB, s *knowledge.Store, r knowledge.StepRecord) {
	t.Helper()
	if _, err := s.Record(r); err != nil {
		t.Fatalf("record %s: %v", r.Tool.Name, err)
	}
}

func session(t testing.TB, s *knowledge.Store, id string, created time.Time, goal string, flowTags, tags []string, branch string) {
	t.Helper()
	m := knowledge.SessionMeta{SessionID: id, CreatedAt: created.UTC().Format(time.RFC3339Nano), Goal: goal, FlowTags: flowTags, Tags: tags}
	if branch != "" {
		m.Git = &knowledge.GitInfo{Branch: branch, Commit: "abc123"}
	}
	if err := s.WriteSession(m); err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}
