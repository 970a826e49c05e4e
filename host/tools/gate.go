package tools

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// pageGate orders a session's step-record observations with its calls. A
// call's observation is made after the call answers, off the session lock,
// holding a lease on the gate: the page it reads may be shared with a
// read-only call (one that changes neither the page nor the wallet, see
// Tool.ReadOnly), which runs meanwhile, but every other call waits until
// no lease is held, so a record always shows the page as its own call left
// it.
//
// An observation also keeps off the answer's path of a capture that
// follows its call at once (Tool.Capture: a viewport screenshot right after
// a click), whose frame the page would otherwise paint only after the
// record's walk: it reads the page once its call answered observeGrace ago
// (a client's next call arrives within that), no capture runs (a capture
// runs until its answer is written, Runner.delivered), and the
// observation of the lease before it is done (so it takes that walk when
// the page has not changed since). Any other call, and Settle, hurries the
// observations in progress instead: they read the page at once (a
// snapshot's walk is the one they take). A capture changes nothing a
// record reads, so the record still shows the page as its own call left
// it.
type pageGate struct {
	mu   sync.Mutex
	n    int           // leases held
	free chan struct{} // closed when n drops to 0; nil while n is 0

	captures int           // captures running (Tool.Capture)
	hurried  bool          // another call or Settle came: no observation gives way
	changed  chan struct{} // closed (and replaced) when captures or hurried changes
	last     chan struct{} // closed once the latest lease's observation is done
}

// observeGrace is how long after its call answered an observation waits
// for the client's next call before it reads the page (see pageGate); a
// call that is not a capture, or Settle, ends the wait at once.
const observeGrace = 10 * time.Millisecond

// maxGiveWay bounds how long an observation gives way to captures.
const maxGiveWay = 2 * time.Second

// enter takes a lease. It returns when its observation may read the page
// (giveWay) and done, to call once the observation is done.
func (g *pageGate) enter() (prev <-chan struct{}, done func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		g.free = make(chan struct{})
	}
	g.n++
	prev = g.last
	mine := make(chan struct{})
	g.last = mine
	return prev, func() { close(mine) }
}

// leave returns a lease.
func (g *pageGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 {
		close(g.free)
		g.free = nil
		g.hurried = false
		g.last = nil
	}
}

// signal wakes the observations that give way; g.mu is held.
func (g *pageGate) signal() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

// hurry makes every observation in progress read the page now, without
// waiting for the ones before it.
func (g *pageGate) hurry() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n > 0 && !g.hurried {
		g.hurried = true
		g.signal()
	}
}

// capturing marks a capture as running; the function it returns marks it
// done.
func (g *pageGate) capturing() func() {
	g.mu.Lock()
	g.captures++
	g.signal()
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.captures--
		g.signal()
		g.mu.Unlock()
	}
}

// giveWay returns once the observation of a call that answered at
// answered may read the page: grace (observeGrace) after answered, while
// no capture runs, and after prev (the lease before it) is done; at once
// when hurried; at the latest maxGiveWay after the grace.
func (g *pageGate) giveWay(answered time.Time, grace time.Duration, prev <-chan struct{}) {
	bound := time.NewTimer(time.Until(answered.Add(grace + maxGiveWay)))
	defer bound.Stop()
	graceT := time.NewTimer(time.Until(answered.Add(grace)))
	defer graceT.Stop()
	graceC := graceT.C
	for {
		g.mu.Lock()
		if g.hurried || (prev == nil && g.captures == 0 && graceC == nil) {
			g.mu.Unlock()
			return
		}
		if g.changed == nil {
			g.changed = make(chan struct{})
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-prev:
			prev = nil
		case <-graceC:
			graceC = nil
		case <-bound.C:
			return
		}
	}
}

// wait returns once no lease is held, or ctx's error. Its caller holds the
// session lock, so no new lease is taken meanwhile. It hurries the
// observations it waits for.
func (g *pageGate) wait(ctx context.Context) error {
	g.hurry()
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

// hurryAll hurries the observations of every owner (Settle).
func (r *Runner) hurryAll() {
	r.locksMu.Lock()
	gates := make([]*pageGate, 0, len(r.gates))
	for _, g := range r.gates {
		gates = append(gates, g)
	}
	r.locksMu.Unlock()
	for _, g := range gates {
		g.hurry()
	}
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
