package builtin

import (
	"context"
	"slices"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// knowledgeTools are mm_knowledge_last, _search, _summarize, _sessions.
// They read every session's records and never wait for the session lock;
// each first lets the previous call's record (made after it answered) be
// written. Another client's session that runs unshared (serve --http) is
// left out, and naming it answers MM_SESSION_NOT_FOUND (see
// Manager.Hidden); its records are readable by all once it ends.
func (g *reg) knowledgeTools() {
	k := g.Knowledge
	tool := func(desc string) tools.Tool { return tools.Tool{Description: desc, NoSession: true} }
	add(g, "knowledge_last", tool("The last N recorded steps (scope current by default; all or {sessionId} too), compact."),
		func(ctx context.Context, _ *tools.Call, q knowledge.LastQuery) (any, error) {
			g.r.Settle()
			hidden, err := g.othersRunning(ctx, q.Scope.SessionID)
			if err != nil {
				return nil, err
			}
			q.Filters = excluding(q.Filters, hidden)
			return k.Last(ctx, g.Sessions.SessionID(ctx), q)
		})
	add(g, "knowledge_search", tool("Search recorded steps of all sessions by tool, screen, testId, accessible name or label (synonyms: send/transfer, approve/confirm ...)."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SearchQuery) (any, error) {
			g.r.Settle()
			hidden, err := g.othersRunning(ctx, q.Scope.SessionID)
			if err != nil {
				return nil, err
			}
			q.Filters = excluding(q.Filters, hidden)
			return k.Search(ctx, g.Sessions.SessionID(ctx), q)
		})
	add(g, "knowledge_summarize", tool("A recipe of one session's steps (scope current or {sessionId})."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SummarizeQuery) (any, error) {
			g.r.Settle()
			if _, err := g.othersRunning(ctx, q.SessionID, q.Scope.SessionID); err != nil {
				return nil, err
			}
			return k.Summarize(ctx, g.Sessions.SessionID(ctx), q)
		})
	add(g, "knowledge_sessions", tool("Recent sessions with goal, flow tags, tags and git branch, newest first."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SessionsQuery) (any, error) {
			g.r.Settle()
			hidden, err := g.othersRunning(ctx)
			if err != nil {
				return nil, err
			}
			q.Filters = excluding(q.Filters, hidden)
			return k.Sessions(ctx, q)
		})
}

// othersRunning lists the sessions another client runs unshared, which a
// knowledge query leaves out; a query naming one of them is refused
// (MM_SESSION_NOT_FOUND, as naming it with Mmcp-Session is).
func (g *reg) othersRunning(ctx context.Context, named ...string) ([]string, error) {
	hidden := g.Sessions.Hidden(ctx)
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

// priorKnowledge is mm_describe_screen's hint block, or nil.
func (g *reg) priorKnowledge(ctx context.Context, current string, obs *observation.Observation) any {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	pk, err := g.Knowledge.PriorKnowledge(qctx, current, knowledge.PriorQuery{
		Screen: obs.State.CurrentScreen, URL: obs.State.CurrentURL, TestIDs: obs.TestIDs, A11yNodes: obs.A11y.Nodes,
		Exclude: g.Sessions.Hidden(ctx),
	})
	if err != nil || pk == nil {
		if err != nil {
			g.Log.Debug("prior knowledge", "error", err)
		}
		return nil
	}
	return pk
}
