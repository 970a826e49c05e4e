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

// List lists the running sessions, oldest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.list()
}

// list is List with m.mu held.
func (m *Manager) list() []Info {
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
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
// owner. An unknown id is MM_SESSION_NOT_FOUND, several sessions with
// AttachAny MM_SESSION_AMBIGUOUS; both list the running sessions.
func (m *Manager) Attach(ctx context.Context, id string) (context.Context, *sdk.Error) {
	if id == "" {
		return ctx, nil
	}
	m.mu.Lock()
	var found *Session
	n := len(m.sessions)
	for _, s := range m.sessions {
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
			WithDetails(map[string]any{"sessions": m.List()})
	case found == nil:
		return ctx, sdk.Errorf(sdk.CodeSessionNotFound, "no session %s runs in this host: name one of details.sessions with --session, or leave --session out", id).
			WithDetails(map[string]any{"sessions": m.List()})
	}
	return tools.WithOwner(ctx, found.owner), nil
}
