package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

func testManager(max int) *Manager {
	return NewManager(Config{Prefix: "mm", MaxSessions: max}, nil, nil, hclog.NewNullLogger())
}

// add puts a running session of owner in m, as a launch would.
func (m *Manager) add(t *testing.T, owner, id string) {
	t.Helper()
	slot, err := m.claimSlot()
	if err != nil {
		t.Fatal(err)
	}
	m.set(tools.WithOwner(context.Background(), owner), &Session{ID: id, CreatedAt: time.Now(), slot: slot})
}

func code(err error) string {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestAttach: `mmcp call` without --session acts on the only session, or
// keeps its own owner when none runs, and fails listing them when several
// run; --session ID acts on that one's owner or fails listing them.
func TestAttach(t *testing.T) {
	m := testManager(4)
	ctx := tools.WithOwner(context.Background(), "cli-1")
	if got, err := m.Attach(ctx, AttachAny); err != nil || tools.Owner(got) != "cli-1" {
		t.Fatalf("no session: owner %q, %v; want its own", tools.Owner(got), err)
	}
	m.add(t, "agent-a", "mm-a")
	if got, err := m.Attach(ctx, AttachAny); err != nil || tools.Owner(got) != "agent-a" || m.SessionID(got) != "mm-a" {
		t.Fatalf("one session: owner %q, %v", tools.Owner(got), err)
	}
	m.add(t, "agent-b", "mm-b")
	if _, err := m.Attach(ctx, AttachAny); code(err) != sdk.CodeSessionAmbiguous || len(err.Details["sessions"].([]Info)) != 2 {
		t.Fatalf("two sessions: %v, want %s listing both", err, sdk.CodeSessionAmbiguous)
	}
	if got, err := m.Attach(ctx, "mm-b"); err != nil || m.SessionID(got) != "mm-b" {
		t.Fatalf("--session mm-b: %v", err)
	}
	if _, err := m.Attach(ctx, "mm-zzz"); code(err) != sdk.CodeSessionNotFound {
		t.Fatalf("--session mm-zzz: %v, want %s", err, sdk.CodeSessionNotFound)
	}
}

// TestSessionLimit: past MaxSessions a launch answers MM_SESSION_LIMIT; a
// session that ends frees its slot for the next.
func TestSessionLimit(t *testing.T) {
	m := testManager(2)
	m.add(t, "a", "mm-a")
	m.add(t, "b", "mm-b")
	if _, err := m.claimSlot(); code(err) != sdk.CodeSessionLimit {
		t.Fatalf("third session: %v, want %s", err, sdk.CodeSessionLimit)
	}
	m.set(tools.WithOwner(context.Background(), "a"), nil)
	if n, err := m.claimSlot(); err != nil || n != 0 {
		t.Fatalf("after a ended: slot %d, %v; want slot 0", n, err)
	}
}
