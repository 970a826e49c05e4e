package session

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Part statuses of the health block.
const (
	partUp     = "up"
	partDown   = "down"
	partAbsent = "absent" // the session does not use it
)

// partHealth is one part of a session in mm_get_state's health block.
type partHealth struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Health is mm_get_state's health block: each part the session
// uses, and each plugin process.
type Health struct {
	Browser partHealth            `json:"browser"`
	Chain   partHealth            `json:"chain"`
	Fixture partHealth            `json:"fixture"`
	Plugins map[string]partHealth `json:"plugins"`
	// Knowledge is the shared knowledge store's outbox, when one is set
	// (--knowledge-url).
	Knowledge *KnowledgeHealth `json:"knowledge,omitempty"`
}

// KnowledgeHealth says whether step records wait locally for the shared
// knowledge store, and how many.
type KnowledgeHealth struct {
	// Status is "up" (nothing queued, the last send worked) or "queued".
	Status string `json:"status"`
	// Queued is how many records wait in <artifacts>/llm-knowledge/.outbox.
	Queued int `json:"queued"`
	// Reason is the last send's error.
	Reason string `json:"reason,omitempty"`
}

// healthProbe bounds each part's check.
const healthProbe = time.Second

// Health checks every part of s: Chrome's connection, the chain's RPC, the
// fixture server's state.json, and the plugin processes.
func (m *Manager) Health(ctx context.Context, s *Session) Health {
	hl := Health{Browser: partHealth{Status: partUp}, Chain: partHealth{Status: partAbsent}, Fixture: partHealth{Status: partAbsent}, Plugins: map[string]partHealth{}}
	if err := s.wallet.Alive(); err != nil {
		hl.Browser = partHealth{Status: partDown, Reason: sdk.AsError(err).Message}
	}
	sl := m.plugins.Slot(s.slot)
	for _, p := range m.plugins.Plugins() {
		if sp := sl.ByName(p.Spec.Name); sp != nil {
			p = sp // the session's own process of a per-session plugin
		}
		status, restarts := p.Health()
		ph := partHealth{Status: status}
		if restarts > 0 {
			ph.Reason = fmt.Sprintf("relaunched %d time(s) after crashing", restarts)
		}
		hl.Plugins[p.Spec.Name] = ph
	}
	if m.knowledge.IsShared() {
		n, err := m.knowledge.Queued()
		kh := &KnowledgeHealth{Status: partUp, Queued: n}
		if n > 0 || err != nil {
			kh.Status = "queued"
		}
		if err != nil {
			kh.Reason = sdk.AsError(err).Message
		}
		hl.Knowledge = kh
	}
	if err := m.ChainAlive(ctx, s); err != nil {
		hl.Chain = partHealth{Status: partDown, Reason: sdk.AsError(err).Message}
	} else if s.parts.Chain != nil {
		hl.Chain = partHealth{Status: partUp}
	}
	if err := m.fixtureAlive(ctx, s); err != nil {
		hl.Fixture = partHealth{Status: partDown, Reason: sdk.AsError(err).Message}
	} else if s.parts.Fixture != nil {
		hl.Fixture = partHealth{Status: partUp}
	}
	return hl
}

// down names the first part of hl that is down, or "".
func (hl Health) down() string {
	for _, p := range []struct {
		name string
		ph   partHealth
	}{{"browser", hl.Browser}, {"chain", hl.Chain}, {"fixture", hl.Fixture}} {
		if p.ph.Status == partDown {
			return p.name
		}
	}
	return ""
}

// ChainAlive answers nil when the session has no chain or its node answers,
// and MM_CHAIN_DOWN otherwise.
func (m *Manager) ChainAlive(ctx context.Context, s *Session) error {
	c := s.parts.Chain
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, healthProbe)
	defer cancel()
	var block string
	err := jsonrpc.Call(ctx, c.RPCURL, "eth_blockNumber", []any{}, &block)
	if err == nil {
		return nil
	}
	why := "its node does not answer at " + c.RPCURL
	if p := m.plugins.Slot(s.slot).ByCapability(sdk.CapChain); p != nil {
		if status, restarts := p.Health(); status == "crashed" || restarts > s.chainRestarts {
			why = "the chain plugin crashed and Anvil died with it: the chain's state is lost"
		}
	}
	return sdk.Errorf(sdk.CodeChainDown, "the session's chain is down (%s); call %s to start a fresh session", why, m.tool("launch")).
		WithDetails(map[string]any{"part": "chain", "rpcUrl": c.RPCURL})
}

// fixtureAlive answers nil when the session has no fixture server or it
// serves, and MM_FIXTURE_DOWN otherwise.
func (m *Manager) fixtureAlive(ctx context.Context, s *Session) error {
	f := s.parts.Fixture
	if f == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, healthProbe)
	defer cancel()
	url := strings.TrimSuffix(f.URL, "/") + "/state.json"
	if f.OriginPort != 0 {
		// The session's own state, on the port its Chrome reaches.
		url = fmt.Sprintf("http://127.0.0.1:%d/state.json", f.OriginPort)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err == nil {
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	return sdk.Errorf(sdk.CodeFixtureDown, "the session's fixture server is down (%s: %v); the running wallet keeps its state, and a reload or a checkpoint restore serves it again first", f.URL, err).
		WithDetails(map[string]any{"part": "fixture", "url": f.URL})
}

// serveAgain serves session s's wallet state again when its fixture server
// no longer serves it (the fixture plugin died and lost it), before the
// wallet's background starts again and reads it: a MetaMask test build
// keeps its state in memory and reads it from the fixture at each start,
// so it would come back with none. It serves the state last served (the
// launch's, or the last restore's) and points the session's Chrome at
// where the plugin serves it now. Nil when it still serves, or the session
// serves no state.
func (m *Manager) serveAgain(ctx context.Context, s *Session) error {
	if s.parts == nil || s.parts.Fixture == nil || len(s.parts.Served().State) == 0 {
		return nil
	}
	if m.fixtureAlive(ctx, s) == nil {
		return nil
	}
	req := s.parts.Served()
	started, err := m.plugins.Slot(s.slot).Fixture().StartFixture(ctx, req)
	if err != nil {
		return err
	}
	m.log.Warn("the session's fixture server was down: its wallet state is served again", "session", s.ID, "url", started.Status.URL)
	s.parts.FixtureServed(req, started.Status)
	return nil
}
