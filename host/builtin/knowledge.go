package builtin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// knowledgeTools are mm_knowledge_last, _search, _summarize, _sessions.
// They read every session's records and never wait for the session lock.
func (g *reg) knowledgeTools() {
	k := g.Knowledge
	for _, t := range []struct {
		base, desc string
		fn         func(context.Context, string, json.RawMessage) (any, error)
	}{
		{"knowledge_last", "The last N recorded steps (scope current by default; all or {sessionId} too), compact.", k.HandleLast},
		{"knowledge_search", "Search recorded steps of all sessions by tool, screen, testId, accessible name or label (synonyms: send/transfer, approve/confirm ...).", k.HandleSearch},
		{"knowledge_summarize", "A recipe of one session's steps (scope current or {sessionId}).", k.HandleSummarize},
		{"knowledge_sessions", "Recent sessions with goal, flow tags, tags and git branch, newest first.", func(ctx context.Context, _ string, args json.RawMessage) (any, error) {
			// Another client's session (serve --http) is not listed unless shared.
			return k.HandleSessionsHiding(ctx, args, func(id string) bool { return g.Sessions.Hidden(ctx, id) })
		}},
	} {
		add(g, t.base, tools.Tool{Description: t.desc, NoSession: true},
			func(ctx context.Context, c *tools.Call, _ struct{}) (any, error) {
				g.r.Settle() // the previous call's record, made after it answered
				return t.fn(ctx, g.Sessions.SessionID(ctx), c.Args)
			})
	}
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
