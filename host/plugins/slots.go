package plugins

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// perSession are the capabilities whose plugin holds one session's state
// (one Anvil, one contracts registry, one proxy and its certificate
// authority): a plugin declaring any of them runs one process per session
// slot. Every other plugin is shared by all slots.
var perSession = []sdk.Capability{sdk.CapChain, sdk.CapContractSeeding, sdk.CapMockServer}

// isPerSession reports whether p runs one process per slot. A reattached
// plugin (MMCP_REATTACH_PLUGINS) is one process the host did not start, so
// it is shared.
func isPerSession(p *Plugin) bool {
	if p.Err != nil || p.reattach != nil {
		return false
	}
	for _, c := range perSession {
		if p.Desc.Has(c) {
			return true
		}
	}
	return false
}

// Slot is the plugins as one wallet session sees them. Slot 0 is the
// plugins started at Start; slot n > 0 has its own process of every
// per-session plugin (chain, contract seeding, mock server), started from
// the same Spec and settings on its first call, relaunched after a crash
// like slot 0's (MM_PLUGIN_CRASHED, then a relaunch on the next call, within
// the restart budget), and stopped by Shutdown. Shared plugins (build,
// fixture, state snapshot, tools-only plugins) are slot 0's in every slot.
type Slot struct {
	m *Manager
	n int
}

// Slot returns session slot n (n >= 0; 0 is the Manager's own plugins).
// Slots need no setup and cost nothing until a per-session capability is
// used.
func (m *Manager) Slot(n int) *Slot { return &Slot{m: m, n: n} }

// N is the slot's number.
func (s *Slot) N() int { return s.n }

// ByName returns the plugin named name as this slot sees it: its own
// instance of a per-session plugin, else slot 0's plugin; nil when no
// plugin has that name. A host routes a plugin's own MCP tools
// (<plugin>_<tool>) through it, and reads the instance's Health and Pid.
func (s *Slot) ByName(name string) *Plugin {
	for _, p := range s.m.plugins {
		if p.Spec.Name == name && p.Spec.Refused == "" {
			return s.of(p)
		}
	}
	return nil
}

// ByCapability returns the first working plugin declaring c as this slot
// sees it, or nil.
func (s *Slot) ByCapability(c sdk.Capability) *Plugin {
	if p := s.m.ByCapability(c); p != nil {
		return s.of(p)
	}
	return nil
}

// Has reports whether a working plugin provides c.
func (s *Slot) Has(c sdk.Capability) bool { return s.m.Has(c) }

// Use runs fn against the plugin that provides c in this slot (see
// Manager.Use).
func (s *Slot) Use(ctx context.Context, c sdk.Capability, fn func(*pluginhost.Conn) error) error {
	p := s.ByCapability(c)
	if p == nil {
		return capabilityMissing(c)
	}
	return p.Use(ctx, fn)
}

// Chain is the slot's chain capability.
func (s *Slot) Chain() sdk.Chain { return chain{s} }

// ContractSeeder is the slot's contract seeding capability.
func (s *Slot) ContractSeeder() sdk.ContractSeeder { return seeder{s} }

// MockServer is the slot's mock server capability.
func (s *Slot) MockServer() sdk.MockServer { return mockServer{s} }

// Builder is the build capability, shared: slot 0's.
func (s *Slot) Builder() sdk.Builder { return s.m.Builder() }

// Fixture is the fixture capability, shared: slot 0's (one server serves
// every session, by origin).
func (s *Slot) Fixture() sdk.Fixture { return s.m.Fixture() }

// StateSnapshot is the state snapshot capability, shared: slot 0's.
func (s *Slot) StateSnapshot() sdk.StateSnapshotter { return s.m.StateSnapshot() }

// of is p as this slot sees it: p itself in slot 0 or when shared, else
// this slot's instance of p, made (unstarted) on first sight.
func (s *Slot) of(p *Plugin) *Plugin {
	if s.n == 0 || !isPerSession(p) {
		return p
	}
	s.m.slotMu.Lock()
	defer s.m.slotMu.Unlock()
	if s.m.slots == nil {
		s.m.slots = map[int]map[string]*Plugin{}
	}
	byName := s.m.slots[s.n]
	if byName == nil {
		byName = map[string]*Plugin{}
		s.m.slots[s.n] = byName
	}
	inst, ok := byName[p.Spec.Name]
	if !ok {
		inst = &Plugin{Spec: p.Spec, Desc: p.Desc, m: s.m, slot: s.n, unstarted: true}
		byName[p.Spec.Name] = inst
	}
	return inst
}

// isClosed reports whether Shutdown has begun.
func (m *Manager) isClosed() bool {
	m.slotMu.Lock()
	defer m.slotMu.Unlock()
	return m.closed
}

// stopSlots stops every slot's instances (Shutdown); none starts after it.
func (m *Manager) stopSlots(ctx context.Context) {
	m.slotMu.Lock()
	m.closed = true
	var all []*Plugin
	for _, byName := range m.slots {
		for _, p := range byName {
			all = append(all, p)
		}
	}
	m.slotMu.Unlock()
	for _, p := range all {
		p.stop(ctx)
	}
}
