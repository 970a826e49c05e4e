package tools

import (
	"context"

	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// holder is the Exclusive call that holds an owner's session lock: what
// a call arriving meanwhile is told instead of waiting behind it.
type holder struct {
	tool    string
	started time.Time
	mu      sync.Mutex
	doing   string    // its last progress message
	since   time.Time // when that message came
}

// hold records the Exclusive call req as its owner's lock holder and
// returns its progress function, which keeps the record current.
func (r *Runner) hold(ctx context.Context, req Request) func(done, total float64, msg string) {
	h := &holder{tool: req.Tool, started: time.Now(), since: time.Now()}
	r.locksMu.Lock()
	r.holders[Owner(ctx)] = h
	r.locksMu.Unlock()
	next := req.Progress
	return func(done, total float64, msg string) {
		h.mu.Lock()
		h.doing, h.since = msg, time.Now()
		h.mu.Unlock()
		if next != nil {
			next(done, total, msg)
		}
	}
}

// unhold forgets the owner's lock holder: its call has answered.
func (r *Runner) unhold(ctx context.Context) {
	r.locksMu.Lock()
	delete(r.holders, Owner(ctx))
	r.locksMu.Unlock()
}

// busy is MM_LAUNCH_IN_PROGRESS when an Exclusive call (mm_launch) holds
// the owner's session lock, nil otherwise: a call that would queue behind
// it for minutes answers at once with what it is doing and for how long.
func (r *Runner) busy(ctx context.Context, tool string) *sdk.Error {
	r.locksMu.Lock()
	h := r.holders[Owner(ctx)]
	r.locksMu.Unlock()
	if h == nil {
		return nil
	}
	h.mu.Lock()
	doing, since := h.doing, h.since
	h.mu.Unlock()
	now := time.Now()
	if doing == "" {
		doing = "starting"
	}
	return sdk.Errorf(sdk.CodeLaunchInProgress,
		"%s cannot run yet: %s is still running for this client (%s, %s in that step, %s in all); it answers once that step finishes or reaches its bound: call %s again then, or cancel the %s call to stop it",
		tool, h.tool, doing, now.Sub(since).Round(time.Second), now.Sub(h.started).Round(time.Second), tool, h.tool).
		WithDetails(map[string]any{"tool": h.tool, "doing": doing, "stepMs": now.Sub(since).Milliseconds(), "runningMs": now.Sub(h.started).Milliseconds()})
}

// exclusive reports whether tool is registered as Exclusive.
func (r *Runner) exclusive(tool string) bool {
	e, ok := r.tools[tool]
	return ok && e.tool.Exclusive
}
