package builtin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mmcp-dev/mmcp/host/flows"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// flowTools are mm_flow_run and mm_flow_resume: the drift loop of a flow
// in the caller's session (host/flows/drift*.go).
func (g *reg) flowTools() {
	d := &flows.Drifts{Workspace: g.Workspace}
	t := func(desc string) tools.Tool {
		return tools.Tool{Description: desc, Timeout: 30 * time.Minute, NoBatch: true}
	}
	add(g, "flow_run", t("Run a flow (path, flow document, or a handoff bundle of mmcp test --handoff) step by step in your session, launching one when there is none; on the first failing step it stops and answers the step, its error, the screen now, earlier sessions' hints and a handle for mm_flow_resume."),
		func(ctx context.Context, c *tools.Call, in flows.RunInput) (any, error) {
			return d.Run(ctx, driftSession{g: g, c: c, owner: tools.Owner(ctx)}, in)
		})
	resume := t("Take your calls since mm_flow_run stopped (by testId, selector or role+name) as the failed step's replacement, run the rest of the flow and its expectations: repaired (the flow written beside the original as <name>.repaired.flow.yaml, with a diff) or regression (an expectation failed; nothing written).")
	resume.Settle = true // the agent's calls' records are written before they are read
	add(g, "flow_resume", resume,
		func(ctx context.Context, c *tools.Call, in flows.ResumeInput) (any, error) {
			return d.Resume(ctx, driftSession{g: g, c: c, owner: tools.Owner(ctx)}, in)
		})
}

// driftSession is the caller's session: the flow's steps run as nested
// calls (their own validation, observation and record).
type driftSession struct {
	g     *reg
	c     *tools.Call
	owner string
}

func (s driftSession) Call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out := s.c.RunNested(ctx, tools.Request{Tool: tool, Args: b, Policy: tools.PolicyNone})
	if !out.Envelope.OK {
		return nil, out.Envelope.Error
	}
	return json.Marshal(out.Envelope.Result)
}

func (s driftSession) Active(ctx context.Context) bool {
	_, err := s.g.Sessions.Active(ctx)
	return err == nil
}

// Client is the call's owner: "" over stdio, an HTTP client's over
// mmcp serve --http.
func (s driftSession) Client() string { return s.owner }

func (s driftSession) Since(ctx context.Context, t time.Time) ([]knowledge.StepRecord, error) {
	return s.g.Sessions.StepsSince(ctx, t)
}
