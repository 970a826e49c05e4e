package builtin

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// knowledgeTools are mm_knowledge_last, _search, _summarize, _sessions.
// They read every session's records (as the call's client may see them,
// session.Manager.KnowledgeLast) and never wait for the session lock;
// each first lets the previous calls' records (made after they answered)
// be written (Settle).
func (g *reg) knowledgeTools() {
	tool := func(desc string) tools.Tool { return tools.Tool{Description: desc, NoSession: true, Settle: true} }
	add(g, "knowledge_last", tool("The last N recorded steps (scope current by default; all or {sessionId} too), compact."),
		func(ctx context.Context, _ *tools.Call, q knowledge.LastQuery) (any, error) {
			return g.Sessions.KnowledgeLast(ctx, q)
		})
	add(g, "knowledge_search", tool("Search recorded steps of all sessions by tool, screen, testId, accessible name or label (synonyms: send/transfer, approve/confirm ...)."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SearchQuery) (any, error) {
			return g.Sessions.KnowledgeSearch(ctx, q)
		})
	add(g, "knowledge_summarize", tool("A recipe of one session's steps (scope current or {sessionId})."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SummarizeQuery) (any, error) {
			return g.Sessions.KnowledgeSummarize(ctx, q)
		})
	add(g, "knowledge_sessions", tool("Recent sessions with goal, flow tags, tags and git branch, newest first."),
		func(ctx context.Context, _ *tools.Call, q knowledge.SessionsQuery) (any, error) {
			return g.Sessions.KnowledgeSessions(ctx, q)
		})
}
