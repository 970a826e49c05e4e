package knowledge

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
)

// onlySession is the one session a query's scope is about, "" when it
// is about several.
func onlySession(scope Scope, current string) string {
	switch scope.Kind {
	case ScopeCurrent:
		return current
	case ScopeSession:
		return scope.SessionID
	}
	return ""
}

// fromDisk reports whether a query about session id answers from this
// host's disk rather than from the shared store. The disk holds every
// record this host wrote; the shared store lags behind it while records
// wait in the outbox (the database is down, or its user cannot write),
// so the disk answers when it holds the session and records are queued
// (shErr nil: before asking the shared store) or the shared store failed
// (shErr its MM_KNOWLEDGE_ERROR).
func (s *Store) fromDisk(ctx context.Context, id string, shErr error) bool {
	if s.ob == nil || id == "" || checkSessionID("session", id) != nil {
		return false
	}
	if shErr == nil {
		if n, _ := s.Queued(); n == 0 {
			return false
		}
	} else if sdk.AsError(shErr).Code != sdk.CodeKnowledgeError {
		return false
	}
	unlock, err := s.lockedRefresh(ctx)
	if err != nil {
		return false
	}
	defer unlock()
	return s.ix.sessions[id] != nil
}
