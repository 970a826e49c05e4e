package session

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Only the default launch takes a standby session: goal, tags and shared
// are the taker's; any launch setting is not the standby's.
func TestMatchesStandby(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`{"autoBuild": true, "stateMode": "default", "slowMo": 0, "shared": true}`, true},
		{`{"goal": "flow: x", "flowTags": ["send"], "tags": ["a"], "seedContracts": []}`, true},
		{`{"stateMode": "onboarding"}`, false},
		{`{"autoBuild": false}`, false},
		{`{"ports": {"anvil": 8545}}`, false},
		{`{"fixturePreset": "withTokens"}`, false},
		{`{"stateMode": "custom", "fixture": {"data": {}}}`, false},
		{`{"seedContracts": ["hst"]}`, false},
		{`{"slowMo": 50}`, false},
		{`{"extensionPath": "dist/chrome"}`, false},
	} {
		var in launch.Input
		if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
			t.Fatal(err)
		}
		if got := MatchesStandby(in); got != tc.want {
			t.Errorf("%s: matches %v, want %v", tc.in, got, tc.want)
		}
	}
}

// standbyManager is a manager of max slots keeping want sessions ahead,
// whose launches ahead block until their context ends (started counts
// them, ended receives each one's end).
func standbyManager(max, want int) (m *Manager, started chan *Session, ended chan *Session) {
	m = NewManager(Config{Prefix: "mm", MaxSessions: max, Standby: want, Mode: "e2e"}, plugins.New(plugins.Config{}, nil), nil, hclog.NewNullLogger())
	started, ended = make(chan *Session, 16), make(chan *Session, 16)
	m.standby.launchAhead = func(ctx context.Context, s *Session) error {
		started <- s
		<-ctx.Done()
		ended <- s
		return ctx.Err()
	}
	return m, started, ended
}

// A standby session holds a slot and gives it way: a launch that finds
// every slot taken gets a standby session's slot (its launch cancelled
// and ended first) instead of MM_SESSION_LIMIT; a standby session never
// takes the last free slot from a launch, and the pool refills once a
// slot frees. Close cancels a standby launch in flight and waits for its
// end.
func TestStandbyGivesWay(t *testing.T) {
	m, started, ended := standbyManager(2, 2)
	m.add(t, "agent-a", "mm-a")
	m.KeepStandby()
	s := <-started
	if s.owner != "" || m.byID(s.ID) != nil || len(m.List("agent-a")) != 1 {
		t.Fatalf("a standby session is owned, listed or named: owner %q", s.owner)
	}
	select {
	case extra := <-started:
		t.Fatalf("a second standby session %s started with no slot free", extra.ID)
	default:
	}
	if _, err := m.claimSlot("agent-b"); code(err) != sdk.CodeSessionLimit {
		t.Fatalf("slots: %v", err)
	}
	slot, ok := m.giveWay()
	if !ok || slot != s.slot {
		t.Fatalf("giveWay: slot %d %v, want the standby's %d", slot, ok, s.slot)
	}
	if got := <-ended; got != s {
		t.Fatal("another launch ended")
	}
	m.mu.Lock()
	held := m.slots[slot]
	m.mu.Unlock()
	if !held {
		t.Fatal("the standby's slot was freed instead of handed to the launch")
	}
	if _, ok := m.giveWay(); ok {
		t.Fatal("gave way twice with one standby session")
	}
	m.releaseSlot(slot) // the launch that took it failed
	m.refill()
	s2 := <-started
	m.Close()
	if got := <-ended; got != s2 {
		t.Fatal("Close did not end the standby launch in flight")
	}
	m.refill()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.slots) != 0 || len(m.standby.warming) != 0 {
		t.Fatalf("after Close and a refill: slots %v, warming %d", m.slots, len(m.standby.warming))
	}
}

// SetStandby(0) stops the pool's refills and leaves what it holds for a
// launch to take; a larger number starts more at once.
func TestSetStandby(t *testing.T) {
	m, started, _ := standbyManager(4, 1)
	defer m.Close()
	m.KeepStandby()
	<-started
	m.SetStandby(0)
	m.refill()
	m.mu.Lock()
	n := len(m.standby.warming)
	m.mu.Unlock()
	if n != 1 {
		t.Fatalf("SetStandby(0): %d launching, want the one already launching", n)
	}
	m.SetStandby(2)
	<-started
}
