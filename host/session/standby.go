package session

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/mmcp-dev/mmcp/host/launch"
)

// Standby sessions (--standby N): the manager keeps N sessions launched
// ahead for the default launch (mm_launch with no argument but a goal or
// tags), so such a launch takes one at once and another starts behind
// it. A standby session is owned by nobody until taken: no client lists
// or names it, and its records (session.json, step records) start when a
// launch takes it. It holds a session slot, so the session limit bounds
// the pool, and it gives way: a launch that finds every slot taken tears
// a standby session down and takes its slot instead of answering
// MM_SESSION_LIMIT. Its chain runs on a free port (it never holds the
// chain plugin's port, which a launch may name). Close tears every
// standby session down, the ones still launching included.

// standby is the pool of sessions launched ahead; m.mu guards it.
type standby struct {
	// want is --standby: how many sessions to keep launched ahead.
	want int
	// ready are launched and owned by nobody, oldest first.
	ready []*Session
	// warming are launching.
	warming map[*Session]*warming
	// closed: the manager is closing; nothing starts any more.
	closed bool
	// launchAhead launches s (Manager.launchInto with the standby
	// launch's input); tests replace it.
	launchAhead func(ctx context.Context, s *Session) error
}

// warming is a standby session's launch in flight.
type warming struct {
	cancel context.CancelFunc
	// done is closed once the launch ended and the session is in the
	// pool, or torn down.
	done chan struct{}
	// gaveWay: a launch took the session's slot (giveWay); the launch's
	// end tears it down and leaves the slot claimed.
	gaveWay bool
}

// standbyLimit bounds a standby session's launch.
const standbyLimit = 5 * time.Minute

// standbyInput is the input a standby session is launched with: the
// default launch, as mm_launch's schema defaults make it.
func standbyInput() launch.Input {
	build := true
	return launch.Input{AutoBuild: &build, StateMode: "default"}
}

// MatchesStandby reports whether a launch with input in may take a
// standby session: it asks for the default launch. Its goal and tags
// (what the records say) and shared (who may name it) are the taker's
// and do not matter; ports, a state, contracts, an extension, slowMo or
// autoBuild false do.
func MatchesStandby(in launch.Input) bool {
	in.Goal, in.FlowTags, in.Tags, in.Shared = "", nil, nil, false
	if in.AutoBuild != nil && *in.AutoBuild {
		in.AutoBuild = nil
	}
	if in.StateMode == "default" {
		in.StateMode = ""
	}
	if len(in.Fixture) == 0 {
		in.Fixture = nil
	}
	if len(in.SeedContracts) == 0 {
		in.SeedContracts = nil
	}
	return reflect.DeepEqual(in, launch.Input{})
}

// refill starts standby launches until the pool holds want sessions
// (ready or launching), as long as a slot is free: a standby session
// never takes the last free slot from nobody, it only gives its own way.
func (m *Manager) refill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := &m.standby
	for !p.closed && len(p.ready)+len(p.warming) < p.want {
		slot, ok := m.freeSlot()
		if !ok {
			return
		}
		s := &Session{ID: newID(), CreatedAt: time.Now(), slot: slot, mode: m.cfg.Mode, ahead: true}
		ctx, cancel := context.WithTimeout(context.Background(), standbyLimit)
		w := &warming{cancel: cancel, done: make(chan struct{})}
		if p.warming == nil {
			p.warming = map[*Session]*warming{}
		}
		p.warming[s] = w
		m.log.Info("standby: launching a session ahead", "sessionId", s.ID, "slot", slot)
		go m.warm(ctx, s, w)
	}
}

// warm launches standby session s and puts it in the pool, or tears it
// down when the manager closed or a launch took its slot meanwhile.
func (m *Manager) warm(ctx context.Context, s *Session, w *warming) {
	defer close(w.done)
	defer w.cancel()
	start := time.Now()
	err := m.standby.launchAhead(ctx, s)
	m.mu.Lock()
	p := &m.standby
	delete(p.warming, s)
	keep := err == nil && !p.closed && !w.gaveWay
	if keep {
		p.ready = append(p.ready, s)
	} else if !w.gaveWay {
		delete(m.slots, s.slot)
	}
	m.mu.Unlock()
	switch {
	case keep:
		m.log.Info("standby: session ready", "sessionId", s.ID, "ms", time.Since(start).Milliseconds())
	case err == nil:
		m.teardown(s)
	case ctx.Err() == nil:
		// Not refilled here, so a launch that keeps failing does not
		// loop: the next launch or cleanup tries again.
		m.log.Warn("standby: launching a session ahead failed", "sessionId", s.ID, "error", err)
	}
}

// takeStandby returns a ready standby session for a launch with input
// in in mode, waiting for one still launching rather than launching
// beside it; nil when none matches or the launch ahead failed.
func (m *Manager) takeStandby(ctx context.Context, in launch.Input, mode string) *Session {
	if mode != m.cfg.Mode || !MatchesStandby(in) {
		return nil
	}
	for {
		m.mu.Lock()
		p := &m.standby
		if len(p.ready) > 0 {
			s := p.ready[0]
			p.ready = p.ready[1:]
			m.mu.Unlock()
			if down := m.Health(ctx, s).down(); down != "" {
				m.log.Warn("standby: a session launched ahead lost its "+down+"; dropped", "sessionId", s.ID)
				m.teardown(s)
				m.releaseSlot(s.slot)
				continue
			}
			return s
		}
		var wait chan struct{}
		for _, w := range p.warming {
			if !w.gaveWay {
				wait = w.done
				break
			}
		}
		m.mu.Unlock()
		if wait == nil {
			return nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil
		}
	}
}

// SetStandby changes how many sessions the pool keeps launched ahead
// from now on; those ready or launching stay, for launches to take. A
// caller that knows no more launches will come (mmcp test's last flow)
// sets 0, so no session is launched behind the last one for nothing.
func (m *Manager) SetStandby(n int) {
	m.mu.Lock()
	m.standby.want = n
	m.mu.Unlock()
	m.refill()
}

// giveWay frees a slot for a launch that found none: it takes a standby
// session's slot (a ready one first, else one still launching), tears
// the session down and returns the slot, still claimed, for the launch.
func (m *Manager) giveWay() (int, bool) {
	m.mu.Lock()
	p := &m.standby
	if n := len(p.ready); n > 0 {
		s := p.ready[n-1]
		p.ready = p.ready[:n-1]
		m.mu.Unlock()
		m.log.Info("standby: a session launched ahead gives its slot to a launch", "sessionId", s.ID)
		m.teardown(s)
		return s.slot, true
	}
	for s, w := range p.warming {
		if w.gaveWay {
			continue
		}
		w.gaveWay = true
		w.cancel()
		m.mu.Unlock()
		m.log.Info("standby: a session launching ahead gives its slot to a launch", "sessionId", s.ID)
		<-w.done
		return s.slot, true
	}
	m.mu.Unlock()
	return 0, false
}

// closeStandby stops the pool: the launches in flight are cancelled
// (each tears down what it started) and waited for, the ready sessions
// torn down.
func (m *Manager) closeStandby() {
	m.mu.Lock()
	p := &m.standby
	p.closed = true
	ready := p.ready
	p.ready = nil
	var waits []chan struct{}
	for _, w := range p.warming {
		w.cancel()
		waits = append(waits, w.done)
	}
	m.mu.Unlock()
	for _, s := range ready {
		m.teardown(s)
		m.releaseSlot(s.slot)
	}
	for _, w := range waits {
		<-w
	}
}

// standbyNote is the prerequisite a launch that took standby session s
// adds to the launch's own.
func standbyNote(s *Session) launch.Prerequisite {
	return launch.Prerequisite{Step: "standby", Description: fmt.Sprintf("took session %s, launched ahead (--standby) %s ago", s.ID, time.Since(s.CreatedAt).Round(time.Millisecond))}
}
