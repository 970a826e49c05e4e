package session

import (
	"context"
	"slices"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/sdk"
)

// The knowledge tools (mm_knowledge_last, _search, _summarize, _sessions)
// read every session's records from the store, as the call's owner may
// see them: another client's session that runs unshared (serve --http) is
// left out, and naming it answers MM_SESSION_NOT_FOUND (see Hidden); its
// records are readable by all once it ends. The runner lets the records
// of earlier calls be written first (tools.Tool.Settle).

// KnowledgeLast is the last steps (mm_knowledge_last).
func (m *Manager) KnowledgeLast(ctx context.Context, q knowledge.LastQuery) (*knowledge.LastResult, error) {
	hidden, err := m.othersRunning(ctx, q.Scope.SessionID)
	if err != nil {
		return nil, err
	}
	q.Filters = excluding(q.Filters, hidden)
	return m.knowledge.Last(ctx, m.SessionID(ctx), q)
}

// KnowledgeSearch searches the steps (mm_knowledge_search).
func (m *Manager) KnowledgeSearch(ctx context.Context, q knowledge.SearchQuery) (*knowledge.SearchResult, error) {
	hidden, err := m.othersRunning(ctx, q.Scope.SessionID)
	if err != nil {
		return nil, err
	}
	q.Filters = excluding(q.Filters, hidden)
	return m.knowledge.Search(ctx, m.SessionID(ctx), q)
}

// KnowledgeSummarize is a recipe of one session's steps
// (mm_knowledge_summarize).
func (m *Manager) KnowledgeSummarize(ctx context.Context, q knowledge.SummarizeQuery) (*knowledge.SummarizeResult, error) {
	if _, err := m.othersRunning(ctx, q.SessionID, q.Scope.SessionID); err != nil {
		return nil, err
	}
	return m.knowledge.Summarize(ctx, m.SessionID(ctx), q)
}

// KnowledgeSessions lists the recent sessions (mm_knowledge_sessions).
func (m *Manager) KnowledgeSessions(ctx context.Context, q knowledge.SessionsQuery) (*knowledge.SessionsResult, error) {
	hidden, err := m.othersRunning(ctx)
	if err != nil {
		return nil, err
	}
	q.Filters = excluding(q.Filters, hidden)
	return m.knowledge.Sessions(ctx, q)
}

// othersRunning lists the sessions another client runs unshared, which a
// knowledge query leaves out; a query naming one of them is refused
// (MM_SESSION_NOT_FOUND, as naming it with Mmcp-Session is).
func (m *Manager) othersRunning(ctx context.Context, named ...string) ([]string, error) {
	hidden := m.Hidden(ctx)
	for _, id := range named {
		if id != "" && slices.Contains(hidden, id) {
			return nil, sdk.Errorf(sdk.CodeSessionNotFound, "session %s is another client's and still running (not launched with shared): its records are readable once it ends; mm_knowledge_sessions lists the sessions you can read", id)
		}
	}
	return hidden, nil
}

// excluding returns f leaving the hidden sessions out (f itself when none
// are).
func excluding(f *knowledge.Filters, hidden []string) *knowledge.Filters {
	if len(hidden) == 0 {
		return f
	}
	out := knowledge.Filters{}
	if f != nil {
		out = *f
	}
	out.Exclude = hidden
	return &out
}
