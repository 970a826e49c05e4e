package session

import (
	"context"
	"sort"

	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// AttachAny asks for the only running session (`mmcp call` without
// --session): with none, the caller keeps its own owner (so its mm_launch
// starts one).
const AttachAny = "*"

// Info describes a running session for the listing an error carries.
type Info struct {
	SessionID string `json:"sessionId"`
	CreatedAt string `json:"createdAt"`
}

// List lists the running sessions owner may act on (its own and the
// shared ones), oldest first.
func (m *Manager) List(owner string) []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.list(owner)
}

// list is List with m.mu held.
func (m *Manager) list(owner string) []Info {
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		if s.visibleTo(owner) {
			all = append(all, s)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].CreatedAt.Before(all[j].CreatedAt) })
	out := make([]Info, len(all))
	for i, s := range all {
		out[i] = Info{SessionID: s.ID, CreatedAt: tools.Timestamp(s.CreatedAt)}
	}
	return out
}

// Attach makes ctx act on session id (`mmcp call --session ID`), or with
// AttachAny on the only running one: it returns ctx with that session's
// owner. Only the caller's own session and the shared ones (mm_launch
// with shared) can be named: another client's session is not found. An
// unknown id is MM_SESSION_NOT_FOUND, several sessions with AttachAny
// MM_SESSION_AMBIGUOUS; both list the sessions the caller may act on.
func (m *Manager) Attach(ctx context.Context, id string) (context.Context, *sdk.Error) {
	if id == "" {
		return ctx, nil
	}
	owner := tools.Owner(ctx)
	m.mu.Lock()
	var found *Session
	n := 0
	for _, s := range m.sessions {
		if !s.visibleTo(owner) {
			continue
		}
		n++
		if id == AttachAny || s.ID == id {
			found = s
		}
	}
	m.mu.Unlock()
	switch {
	case id == AttachAny && n == 0:
		return ctx, nil
	case id == AttachAny && n > 1:
		return ctx, sdk.Errorf(sdk.CodeSessionAmbiguous, "%d sessions run in this host: name one with --session ID", n).
			WithDetails(map[string]any{"sessions": m.List(owner)})
	case found == nil:
		return ctx, sdk.Errorf(sdk.CodeSessionNotFound, "no session %s of yours runs in this host (another client's session can be named only when it was launched with shared): name one of details.sessions with --session, or leave --session out", id).
			WithDetails(map[string]any{"sessions": m.List(owner)})
	}
	return tools.WithOwner(ctx, found.owner), nil
}

// visibleTo reports whether owner may act on s: its own session, or one
// launched with shared.
func (s *Session) visibleTo(owner string) bool { return s.owner == owner || s.shared }

// Hidden lists the sessions running in this host that belong to another
// owner than ctx's and are not shared: the knowledge tools leave their
// records out and refuse to name them (MM_SESSION_NOT_FOUND). Once such a
// session ends its records are the knowledge store's history, like those
// of earlier hosts, readable by every client.
func (m *Manager) Hidden(ctx context.Context) []string {
	owner := tools.Owner(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, s := range m.sessions {
		if !s.visibleTo(owner) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}
