package session

import (
	"context"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// Observe implements tools.Observer: the state of the call's session, and
// with full the visible testids and the trimmed tree. It never touches the
// agent's refs; the node of the element ref names (the call's a11yRef, if
// any) carries that ref. The session and its refs are taken now, as the
// call left them: a snapshot that runs beside the observation replaces the
// agent's refs.
func (m *Manager) Observe(ctx context.Context, full bool, ref string) func(context.Context) *observation.Observation {
	s := m.get(ctx)
	if s == nil {
		return func(context.Context) *observation.Observation { return nil }
	}
	refs := s.Refs()
	return func(ctx context.Context) *observation.Observation {
		return m.observe(ctx, s, full, func(page *rod.Page, st observation.State) ([]observation.TestIDItem, []observation.A11yNode, error) {
			// On a dapp page the record may take a snapshot's walk made
			// meanwhile, of the page its state read (stateHolds).
			var take func(discovery.At) bool
			if !s.walletPage(page) {
				take = func(at discovery.At) bool { return stateHolds(st, at) }
			}
			return discovery.ObserveTaking(ctx, page, discovery.DefaultTestIDLimit, refs, ref, take)
		})
	}
}

// Describe is the observation the agent is given (mm_describe_screen): its
// refs replace the agent's.
func (m *Manager) Describe(ctx context.Context) *observation.Observation {
	s := m.get(ctx)
	if s == nil {
		return nil
	}
	return m.observe(ctx, s, true, func(page *rod.Page, _ observation.State) ([]observation.TestIDItem, []observation.A11yNode, error) {
		ids, nodes, refs, err := discovery.Describe(ctx, page, discovery.DefaultTestIDLimit)
		if err == nil {
			s.setRefs(refs)
		}
		return ids, nodes, err
	})
}

func (m *Manager) observe(ctx context.Context, s *Session, full bool, walk func(*rod.Page, observation.State) ([]observation.TestIDItem, []observation.A11yNode, error)) *observation.Observation {
	if s.browser.Alive() != nil {
		return nil // nothing to observe in a dead browser (and never wait on it)
	}
	obs := &observation.Observation{TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
	st, _, err := s.readState(ctx).wait(ctx)
	if err != nil {
		m.log.Debug("observe: state", "error", err)
	}
	obs.State = st
	if !full {
		return obs
	}
	page := s.browser.ActivePage()
	if page == nil {
		return obs
	}
	ids, nodes, err := walk(page, st)
	if err != nil {
		m.log.Debug("observe: discovery", "error", err)
		return obs
	}
	obs.TestIDs, obs.A11y.Nodes = ids, nodes
	return obs
}

// State is mm_get_state's state: the browser's view, with the balance read
// from the chain when one runs.
func (m *Manager) State(ctx context.Context, s *Session) (observation.State, error) {
	st, err := s.browser.State(ctx)
	if err != nil {
		return st, err
	}
	m.ChainBalance(ctx, s, &st)
	return st, nil
}

// ChainBalance replaces the page's balance with the account's balance on
// the session's chain, when there is one.
func (m *Manager) ChainBalance(ctx context.Context, s *Session, st *observation.State) {
	if s.parts.Chain == nil || st.AccountAddress == nil || *st.AccountAddress == "" {
		return
	}
	bal, err := balanceOf(ctx, s.parts.Chain.RPCURL, *st.AccountAddress)
	if err != nil {
		// Never report what the page shows from a dead chain as current.
		m.log.Debug("balance from chain", "error", err)
		st.Balance = nil
		return
	}
	st.Balance = &bal
}
