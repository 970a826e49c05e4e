package tools

import (
	"context"
	"encoding/json"
	"sync"
)

// pageGate orders a session's step-record observations with its calls. A
// call's observation is made after the call answers, off the session lock,
// holding a lease on the gate: the page it reads may be shared with a
// read-only call (one that changes neither the page nor the wallet, see
// Tool.ReadOnly), which runs meanwhile, but every other call waits until
// no lease is held, so a record always shows the page as its own call left
// it.
type pageGate struct {
	mu   sync.Mutex
	n    int           // leases held
	free chan struct{} // closed when n drops to 0; nil while n is 0
}

// enter takes a lease.
func (g *pageGate) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		g.free = make(chan struct{})
	}
	g.n++
}

// leave returns a lease.
func (g *pageGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 {
		close(g.free)
		g.free = nil
	}
}

// wait returns once no lease is held, or ctx's error. Its caller holds the
// session lock, so no new lease is taken meanwhile.
func (g *pageGate) wait(ctx context.Context) error {
	g.mu.Lock()
	free := g.free
	g.mu.Unlock()
	if free == nil {
		return nil
	}
	select {
	case <-free:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gate is the page gate of the call's owner (see Owner).
func (r *Runner) gate(ctx context.Context) *pageGate {
	owner := Owner(ctx)
	r.locksMu.Lock()
	defer r.locksMu.Unlock()
	g, ok := r.gates[owner]
	if !ok {
		g = &pageGate{}
		r.gates[owner] = g
	}
	return g
}

// ReadOnly reports whether the call of tool with args changes neither the
// page nor the wallet (Tool.ReadOnly): it need not wait for the previous
// call's observation.
func (r *Runner) ReadOnly(tool string, args json.RawMessage) bool {
	e, ok := r.tools[tool]
	if !ok || e.tool.ReadOnly == nil {
		return false
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	c := Call{Args: args, defaults: e.defaults}
	return e.tool.ReadOnly(c.Decode)
}
