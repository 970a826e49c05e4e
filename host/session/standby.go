package session

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/launch"
)

// Standby sessions (--standby N): the manager keeps N sessions launched
// ahead for the default launch (mm_launch with no argument but a goal or
// tags), and with --standby-checkpoint NAME one fork of checkpoint NAME
// (mm_launch {fromCheckpoint: NAME}), so such a launch takes one at once
// and another starts behind it. A standby session is owned by nobody until taken: no client lists
// or names it, and its records (session.json, step records) start when a
// launch takes it. It holds a session slot, so the session limit bounds
// the pool, and it gives way: a launch that finds every slot taken tears
// a standby session down and takes its slot instead of answering
// MM_SESSION_LIMIT. Its chain runs on a free port (it never holds the
// chain plugin's port, which a launch may name). Close tears every
// standby session down, the ones still launching included.

// standby is the pool of sessions launched ahead; m.mu guards it.
type standby struct {
	// want is --standby: how many sessions to keep launched ahead for
	// the default launch.
	want int
	// checkpoint is --standby-checkpoint: the checkpoint one fork of
	// which is kept launched ahead ("" none).
	checkpoint string
	// ready are launched and owned by nobody, oldest first.
	ready []*Session
	// warming are launching.
	warming map[*Session]*warming
	// closed: the manager is closing; nothing starts any more.
	closed bool
	// launchAhead launches s (Manager.launchAhead); tests replace it.
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

// refill starts standby launches until the pool holds want default
// sessions and one fork of the checkpoint (ready or launching), as long
// as a slot is free: a standby session never takes the last free slot
// from nobody, it only gives its own way.
func (m *Manager) refill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := &m.standby
	wants := map[string]int{"": p.want}
	if p.checkpoint != "" {
		wants[p.checkpoint] = 1
	}
	for key, want := range wants {
		for !p.closed && p.held(key) < want {
			slot, ok := m.freeSlot()
			if !ok {
				return
			}
			s := &Session{ID: newID(), CreatedAt: time.Now(), slot: slot, mode: m.cfg.Mode, ahead: true, aheadFor: key}
			ctx, cancel := context.WithTimeout(context.Background(), standbyLimit)
			w := &warming{cancel: cancel, done: make(chan struct{})}
			if p.warming == nil {
				p.warming = map[*Session]*warming{}
			}
			p.warming[s] = w
			m.log.Info("standby: launching a session ahead", "sessionId", s.ID, "slot", slot, "checkpoint", key)
			go m.warm(ctx, s, w)
		}
	}
}

// held counts the pool's sessions, ready or launching, for key ("" the
// default launch, else a checkpoint).
func (p *standby) held(key string) int {
	n := 0
	for _, s := range p.ready {
		if s.aheadFor == key {
			n++
		}
	}
	for s, w := range p.warming {
		if s.aheadFor == key && !w.gaveWay {
			n++
		}
	}
	return n
}

// launchAhead launches standby session s: the default launch, or a fork
// of its checkpoint as it is saved now.
func (m *Manager) launchAhead(ctx context.Context, s *Session) error {
	build := true
	if s.aheadFor == "" {
		return m.launchInto(ctx, s, standbyInput(), nil)
	}
	from, err := m.Checkpoints().Find(s.aheadFor)
	if err != nil {
		return err
	}
	return m.launchFrom(ctx, s, launch.Input{AutoBuild: &build, FromCheckpoint: s.aheadFor}, from, nil)
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
// in in mode (from: the checkpoint it forks, as saved now), waiting for
// one still launching rather than launching beside it; nil when none
// matches or the launch ahead failed. A fork launched ahead from an
// older save of the checkpoint is dropped.
func (m *Manager) takeStandby(ctx context.Context, in launch.Input, mode string, from *checkpoint.Saved) *Session {
	key := in.FromCheckpoint
	in.FromCheckpoint = ""
	if mode != m.cfg.Mode || !MatchesStandby(in) || (key != "") != (from != nil) {
		return nil
	}
	for {
		m.mu.Lock()
		p := &m.standby
		var s *Session
		for i, r := range p.ready {
			if r.aheadFor == key {
				s = r
				p.ready = append(p.ready[:i:i], p.ready[i+1:]...)
				break
			}
		}
		if s != nil {
			m.mu.Unlock()
			down := m.Health(ctx, s).down()
			if down == "" && from != nil && (s.from == nil || s.from.From != from.From || !s.from.SavedAt.Equal(from.SavedAt)) {
				down = "checkpoint (saved again since)"
			}
			if down != "" {
				m.log.Warn("standby: a session launched ahead lost its "+down+"; dropped", "sessionId", s.ID)
				m.teardown(s)
				m.releaseSlot(s.slot)
				continue
			}
			return s
		}
		var wait chan struct{}
		for r, w := range p.warming {
			if r.aheadFor == key && !w.gaveWay {
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
