package session

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
)

// StepsSince are the records of the caller's session's calls that started
// after t, in order (mm_flow_resume: the agent's calls since a flow
// stopped). The runner lets earlier calls' records be written first
// (tools.Tool.Settle).
func (m *Manager) StepsSince(ctx context.Context, t time.Time) ([]knowledge.StepRecord, error) {
	_, recs, err := m.knowledge.SessionSteps(ctx, m.SessionID(ctx))
	if err != nil {
		return nil, err
	}
	// Records carry their call's start in milliseconds.
	after := t.Truncate(time.Millisecond)
	var out []knowledge.StepRecord
	for _, r := range recs {
		if ts, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil && ts.After(after) {
			out = append(out, r)
		}
	}
	return out, nil
}
