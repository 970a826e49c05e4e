package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// batchInput is mm_run_steps' input.
type batchInput struct {
	Steps []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	} `json:"steps"`
	StopOnError         bool   `json:"stopOnError"`
	IncludeObservations Policy `json:"includeObservations"`
}

// BatchStep is one entry of mm_run_steps' result.
type BatchStep struct {
	Tool   string     `json:"tool"`
	OK     bool       `json:"ok"`
	Result any        `json:"result,omitempty"`
	Error  *sdk.Error `json:"error,omitempty"`
	Meta   BatchMeta  `json:"meta"`
}

// BatchMeta is a batch step's timing.
type BatchMeta struct {
	DurationMs int64  `json:"durationMs"`
	Timestamp  string `json:"timestamp"`
}

// BatchSummary is mm_run_steps' summary.
type BatchSummary struct {
	OK         bool  `json:"ok"`
	Total      int   `json:"total"`
	Succeeded  int   `json:"succeeded"`
	Failed     int   `json:"failed"`
	DurationMs int64 `json:"durationMs"`
}

// RunSteps is the handler of mm_run_steps: every step goes through the same
// runner as a top-level call (its own validation, deadline, observation
// under the batch's policy, record and timing), under the batch's session
// lock. name is the batch tool's own name, refused inside a batch.
func RunSteps(name string) Handler {
	return func(ctx context.Context, c *Call) (any, error) {
		var in batchInput
		if err := c.Decode(&in); err != nil {
			return nil, err
		}
		if in.IncludeObservations == "" {
			in.IncludeObservations = PolicyAll
		}
		start := time.Now()
		allowed := c.runner.Names(func(t *Tool) bool { return !t.NoBatch && t.Name != name })
		out := struct {
			Steps   []BatchStep  `json:"steps"`
			Summary BatchSummary `json:"summary"`
		}{Steps: []BatchStep{}}
		total := float64(len(in.Steps))
		for i, st := range in.Steps {
			if ctx.Err() != nil {
				break // cancelled: the rest of the batch does not run
			}
			// Progress goes out as a step starts, never right before the
			// response: clients that dispatch notifications after responses
			// (the official TypeScript SDK) would drop it.
			c.Progress(float64(i), total, fmt.Sprintf("step %d/%d %s", i+1, len(in.Steps), st.Tool))
			stepStart := time.Now()
			var o Outcome
			if t, ok := c.runner.Lookup(st.Tool); !ok || t.NoBatch || t.Name == name {
				o = c.runner.finish(ctx, stepStart, nil, nil, sdk.Errorf(sdk.CodeInvalidInput,
					"step %d: %q cannot run in %s", i+1, st.Tool, name).WithDetails(map[string]any{"field": fmt.Sprintf("steps.%d.tool", i), "allowed": allowed}))
			} else {
				o = c.RunNested(ctx, Request{Tool: st.Tool, Args: st.Args, Policy: in.IncludeObservations})
			}
			env := o.Envelope
			bs := BatchStep{Tool: st.Tool, OK: env.OK, Result: env.Result, Error: env.Error,
				Meta: BatchMeta{DurationMs: env.Meta.DurationMs, Timestamp: env.Meta.Timestamp}}
			out.Steps = append(out.Steps, bs)
			c.images = append(c.images, o.Images...)
			if env.OK {
				out.Summary.Succeeded++
			} else {
				out.Summary.Failed++
			}
			if !env.OK && in.StopOnError {
				break
			}
		}
		out.Summary.Total = len(in.Steps)
		out.Summary.OK = out.Summary.Failed == 0 && len(out.Steps) == len(in.Steps)
		out.Summary.DurationMs = time.Since(start).Milliseconds()
		if ctx.Err() != nil {
			return nil, sdk.Errorf(sdk.CodeCancelled, "%s cancelled after %d of %d steps", name, len(out.Steps), len(in.Steps)).
				WithDetails(map[string]any{"steps": out.Steps})
		}
		return out, nil
	}
}
