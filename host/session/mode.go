package session

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/launch"

	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// prodCapabilities are the capabilities a prod-mode session uses: the
// extension's build and the wallet's state probe, never a chain, wallet
// state, contracts or mocks.
var prodCapabilities = map[sdk.Capability]bool{sdk.CapBuild: true, sdk.CapStateSnapshot: true}

// Mode is the environment mode of the call's owner: the one it set with
// mm_set_context, else the host's.
func (m *Manager) Mode(ctx context.Context) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mode, ok := m.modes[tools.Owner(ctx)]; ok {
		return mode
	}
	return m.cfg.Mode
}

// SetContext runs mm_set_context: it switches the owner's environment
// mode for its next launches. It is refused with MM_CONTEXT_SWITCH_BLOCKED
// while the owner's session runs (a launch in progress answers
// MM_LAUNCH_IN_PROGRESS before it gets here).
func (m *Manager) SetContext(ctx context.Context, mode string) (map[string]any, error) {
	if err := launch.CheckMode(mode); err != nil {
		return nil, sdk.AsError(err).WithDetails(map[string]any{"field": "context"})
	}
	prev := m.Mode(ctx)
	if s := m.get(ctx); s != nil {
		return nil, sdk.Errorf(sdk.CodeContextSwitchBlocked, "cannot switch to %s while session %s runs in %s: call %s first, then %s",
			mode, s.ID, prev, m.tool("cleanup"), m.tool("set_context")).
			WithDetails(map[string]any{"sessionId": s.ID, "currentContext": prev})
	}
	m.mu.Lock()
	m.modes[tools.Owner(ctx)] = mode
	m.mu.Unlock()
	return map[string]any{"previousContext": prev, "context": m.ContextInfo(ctx)}, nil
}

// ContextInfo runs mm_get_context: the owner's
// mode, its session, the capabilities a launch in that mode uses, and
// whether mm_set_context may switch now.
func (m *Manager) ContextInfo(ctx context.Context) map[string]any {
	mode := m.Mode(ctx)
	var sid any
	s := m.get(ctx)
	if s != nil {
		sid = s.ID
	}
	available := []string{}
	for _, c := range []sdk.Capability{sdk.CapBuild, sdk.CapFixture, sdk.CapChain, sdk.CapContractSeeding, sdk.CapMockServer, sdk.CapStateSnapshot} {
		if m.uses(mode, c) && m.plugins.Has(c) {
			available = append(available, string(c))
		}
	}
	return map[string]any{
		"currentContext":   mode,
		"hasActiveSession": s != nil,
		"sessionId":        sid,
		"capabilities":     map[string]any{"available": available},
		"canSwitchContext": s == nil,
		"contexts":         launch.Modes,
	}
}

// uses reports whether a session in mode uses capability c (when a plugin
// provides it): e2e uses them all; the build needs a workspace.
func (m *Manager) uses(mode string, c sdk.Capability) bool {
	if c == sdk.CapBuild && m.cfg.Repo == "" {
		return false
	}
	return mode != launch.ModeProd || prodCapabilities[c]
}
