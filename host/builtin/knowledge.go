package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// knowledgeTools are mm_knowledge_last, _search, _summarize, _sessions.
// They read every session's records and never wait for the session lock;
// each first lets the previous call's record (made after it answered) be
// written.
func (g *reg) knowledgeTools() {
	k := g.Knowledge
	tool := func(desc string) tools.Tool { return tools.Tool{Description: desc, NoSession: true} }
	add(g, "knowledge_last", tool("The last N recorded steps (scope current by default; all or {sessionId} too), compact."),
		func(ctx context.Context, _ *tools.Call, q knowledge.LastQuery) (any, error) {
			g.r.Settle()
			return k.Last(ctx, g.Sessions.SessionID(ctx), q)
		})
	add(g, "knowledge_search", tool("Search recorded steps of all sessions by tool, screen, testId, accessible name or label (synonyms: send/transfer, approve/confirm ...)."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SearchQuery) (any, error) {
			g.r.Settle()
			return k.Search(ctx, g.Sessions.SessionID(ctx), q)
		})
	add(g, "knowledge_summarize", tool("A recipe of one session's steps (scope current or {sessionId})."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SummarizeQuery) (any, error) {
			g.r.Settle()
			return k.Summarize(ctx, g.Sessions.SessionID(ctx), q)
		})
	add(g, "knowledge_sessions", tool("Recent sessions with goal, flow tags, tags and git branch, newest first."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SessionsQuery) (any, error) {
			g.r.Settle()
			// Another client's session (serve --http) is not listed unless shared.
			q.Hidden = func(id string) bool { return g.Sessions.Hidden(ctx, id) }
			return k.Sessions(ctx, q)
		})
}

// priorKnowledge is mm_describe_screen's hint block, or nil.
func (g *reg) priorKnowledge(ctx context.Context, current string, obs *observation.Observation) any {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	pk, err := g.Knowledge.PriorKnowledge(qctx, current, knowledge.PriorQuery{
		Screen: obs.State.CurrentScreen, URL: obs.State.CurrentURL, TestIDs: obs.TestIDs, A11yNodes: obs.A11y.Nodes,
	})
	if err != nil || pk == nil {
		if err != nil {
			g.Log.Debug("prior knowledge", "error", err)
		}
		return nil
	}
	return pk
}
