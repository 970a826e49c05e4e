package session

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

func testManager(max int) *Manager {
	return NewManager(Config{Prefix: "mm", MaxSessions: max}, nil, nil, hclog.NewNullLogger())
}

// add puts a running session of owner in m, as a launch would (shared
// as mm_launch's shared).
func (m *Manager) add(t *testing.T, owner, id string, shared ...bool) {
	t.Helper()
	slot, err := m.claimSlot(owner)
	if err != nil {
		t.Fatal(err)
	}
	m.set(tools.WithOwner(context.Background(), owner), &Session{ID: id, CreatedAt: time.Now(), slot: slot, shared: len(shared) > 0 && shared[0]})
}

func code(err error) string {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestAttach: `mmcp call` without --session acts on the only session it
// may act on, or keeps its own owner when there is none, and fails listing
// them when several run; --session ID acts on that one's owner or fails
// listing them. Another owner's session is out of reach unless shared, and
// the knowledge tools hide it while it runs.
func TestAttach(t *testing.T) {
	m := testManager(4)
	ctx := tools.WithOwner(context.Background(), "cli-1")
	if got, err := m.Attach(ctx, AttachAny); err != nil || tools.Owner(got) != "cli-1" {
		t.Fatalf("no session: owner %q, %v; want its own", tools.Owner(got), err)
	}
	m.add(t, "agent-a", "mm-a")
	if got, err := m.Attach(ctx, AttachAny); err != nil || tools.Owner(got) != "cli-1" || m.SessionID(got) != "" {
		t.Fatalf("another's session only: owner %q, %v; want its own, with no session", tools.Owner(got), err)
	}
	if _, err := m.Attach(ctx, "mm-a"); code(err) != sdk.CodeSessionNotFound || len(err.Details["sessions"].([]Info)) != 0 {
		t.Fatalf("--session of another's session: %v, want %s listing none", err, sdk.CodeSessionNotFound)
	}
	if h, own := m.Hidden(ctx), m.Hidden(tools.WithOwner(context.Background(), "agent-a")); !slices.Equal(h, []string{"mm-a"}) || len(own) != 0 {
		t.Fatalf("hidden from cli-1 %v, from agent-a %v: want mm-a from cli-1 only", h, own)
	}
	m.add(t, "agent-b", "mm-b", true)
	if got, err := m.Attach(ctx, AttachAny); err != nil || tools.Owner(got) != "agent-b" || m.SessionID(got) != "mm-b" {
		t.Fatalf("one shared session: owner %q, %v", tools.Owner(got), err)
	}
	if h := m.Hidden(ctx); slices.Contains(h, "mm-b") {
		t.Fatal("a shared session is hidden")
	}
	m.add(t, "cli-1", "mm-c")
	if _, err := m.Attach(ctx, AttachAny); code(err) != sdk.CodeSessionAmbiguous || len(err.Details["sessions"].([]Info)) != 2 {
		t.Fatalf("two sessions: %v, want %s listing both", err, sdk.CodeSessionAmbiguous)
	}
	for _, id := range []string{"mm-b", "mm-c"} {
		if got, err := m.Attach(ctx, id); err != nil || m.SessionID(got) != id {
			t.Fatalf("--session %s: %v", id, err)
		}
	}
	if _, err := m.Attach(ctx, "mm-zzz"); code(err) != sdk.CodeSessionNotFound {
		t.Fatalf("--session mm-zzz: %v, want %s", err, sdk.CodeSessionNotFound)
	}
	m.set(tools.WithOwner(context.Background(), "agent-a"), nil)
	if h := m.Hidden(ctx); len(h) != 0 {
		t.Fatalf("hidden after agent-a's session ended: %v; its records are history", h)
	}
}

// TestSessionLimit: past MaxSessions a launch answers MM_SESSION_LIMIT; a
// session that ends frees its slot for the next.
func TestSessionLimit(t *testing.T) {
	m := testManager(2)
	m.add(t, "a", "mm-a")
	m.add(t, "b", "mm-b")
	if _, err := m.claimSlot("c"); code(err) != sdk.CodeSessionLimit {
		t.Fatalf("third session: %v, want %s", err, sdk.CodeSessionLimit)
	}
	m.set(tools.WithOwner(context.Background(), "a"), nil)
	if n, err := m.claimSlot("a"); err != nil || n != 0 {
		t.Fatalf("after a ended: slot %d, %v; want slot 0", n, err)
	}
}
