package session

import (
	"context"
	"errors"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/wallet"
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
	ahead := s.reads.takeAhead(tools.CallID(ctx))
	app := s.reads.takeApp(tools.CallID(ctx))
	answered := time.Now() // the call is done; no other ran since
	return func(ctx context.Context) *observation.Observation {
		return m.observe(ctx, s, full, ahead, app, answered, func(page *rod.Page, st observation.State, version string) ([]observation.TestIDItem, []observation.A11yNode, discovery.At, error) {
			take := takeWalk(st, version, answered, s.walletPage(page))
			return discovery.ObserveTaking(ctx, page, discovery.DefaultTestIDLimit, refs, ref, take)
		})
	}
}

// takeWalk says which snapshot walk a record whose call answered at
// answered may take: one made since (only a read-only call runs before
// the record) of the page its state st read, read at the page's version
// version (readHolds: on a wallet page the same version, elsewhere the
// same URL and load state).
func takeWalk(st observation.State, version string, answered time.Time, wallet bool) func(discovery.At) bool {
	return func(at discovery.At) bool { return at.Walked.After(answered) && readHolds(st, version, at, wallet) }
}

// describe is the observation the agent is given (mm_describe_screen)
// of session s: its refs replace the agent's.
func (m *Manager) describe(ctx context.Context, s *Session) *observation.Observation {
	return m.observe(ctx, s, true, nil, nil, time.Time{}, func(page *rod.Page, _ observation.State, _ string) ([]observation.TestIDItem, []observation.A11yNode, discovery.At, error) {
		ids, nodes, refs, err := discovery.Describe(ctx, page, discovery.DefaultTestIDLimit)
		if err == nil {
			s.setRefs(refs)
		}
		return ids, nodes, discovery.At{}, err
	})
}

// observe is the observation of session s: its state, and with full the
// walk's testids and nodes. ahead is the state read ReadAhead started for
// the call (nil for none): it is taken when the page stayed as it saw it
// (observeAhead), as is, without one, the read a read-only call started
// since the call answered at answered (stateReads.since; a zero answered
// takes none); else the state is read now, taking app, the app state the
// call read ahead (ReadAppAhead; nil for none), when it may.
func (m *Manager) observe(ctx context.Context, s *Session, full bool, ahead *stateRead, app *wallet.AppRead, answered time.Time, walk walkFunc) *observation.Observation {
	if s.wallet.Alive() != nil {
		return nil // nothing to observe in a dead browser (and never wait on it)
	}
	obs := &observation.Observation{TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
	if ahead == nil && !answered.IsZero() {
		ahead = s.reads.since(s.wallet.ActivePage(), answered, tools.Changes())
	}
	if ahead != nil && observeAhead(ctx, s, full, ahead, obs, walk) {
		return obs
	}
	st, version, err := s.readState(ctx, app).wait(ctx)
	if err != nil {
		m.log.Debug("observe: state", "error", err)
	}
	obs.State = st
	if !full {
		return obs
	}
	page := s.wallet.ActivePage()
	if page == nil {
		return obs
	}
	ids, nodes, _, err := walk(page, st, version)
	if err != nil {
		m.log.Debug("observe: discovery", "error", err)
		return obs
	}
	obs.TestIDs, obs.A11y.Nodes = ids, nodes
	return obs
}

// walkFunc walks page for an observation whose state is st, read when the
// page's version was version ("" when unknown; see readHolds), and says
// where the page was at the walk (a walk that cannot say returns a zero
// At: a state read ahead is then never paired with it).
type walkFunc func(page *rod.Page, st observation.State, version string) ([]observation.TestIDItem, []observation.A11yNode, discovery.At, error)

// observeAhead fills obs from the state read ahead, r, and with full a
// walk of the active page, when the walk saw the page r read (readHolds
// on where the page was at the walk). Without full (the call gathered its
// own testids or nodes) the page must hold for r once the call is done, as
// a state read then would have seen it. It reports false, with obs
// untouched, when the read failed, the active page is another, or the
// page changed; the caller then reads the state again.
func observeAhead(ctx context.Context, s *Session, full bool, r *stateRead, obs *observation.Observation, walk walkFunc) bool {
	page := s.wallet.ActivePage()
	if page == nil || page != r.page {
		return false
	}
	active := func(at discovery.At, err error) (discovery.At, error) {
		if err == nil && s.wallet.ActivePage() != page {
			err = errors.New("another page is active")
		}
		return at, err
	}
	return pairAhead(ctx, r, s.walletPage(page), full, func() (discovery.At, error) {
		return active(discovery.PageAt(ctx, page))
	}, func(st observation.State, version string) ([]observation.TestIDItem, []observation.A11yNode, discovery.At, error) {
		ids, nodes, at, err := walk(page, st, version)
		at, err = active(at, err)
		return ids, nodes, at, err
	}, obs)
}

// pairAhead is observeAhead on one page: at reads where the page is now,
// walk walks it and says where it was at the walk. With full the walk
// alone proves the pairing: it is synchronous, so the read and the walk
// saw the same page when the page was, at the walk, where the read saw it
// (the same version on a wallet page, the same URL and load state on
// another); no read of the page before or after it is needed.
func pairAhead(ctx context.Context, r *stateRead, wallet, full bool, at func() (discovery.At, error),
	walk func(observation.State, string) ([]observation.TestIDItem, []observation.A11yNode, discovery.At, error), obs *observation.Observation) bool {
	st, version, err := r.wait(ctx)
	if err != nil {
		return false
	}
	if full {
		ids, nodes, walked, err := walk(st, version)
		if err != nil || !readHolds(st, version, walked, wallet) {
			return false
		}
		obs.TestIDs, obs.A11y.Nodes = ids, nodes
	} else if now, err := at(); err != nil || !readHolds(st, version, now, wallet) {
		return false
	}
	obs.State = st
	return true
}

// State is mm_get_state's state: the browser's view, with the balance read
// from the chain when one runs. Its read is also the call's record's state
// read (ReadAhead's), kept when the page still holds for it.
func (m *Manager) State(ctx context.Context, s *Session) (observation.State, error) {
	r := s.readState(ctx, nil)
	s.reads.setAhead(r, tools.CallID(ctx))
	st, _, err := r.wait(ctx)
	if err != nil {
		return st, err
	}
	m.chainBalance(ctx, s, &st)
	return st, nil
}

// GetState is mm_get_state: the state (State), the tracked tabs and the
// session's health.
func (m *Manager) GetState(ctx context.Context) (map[string]any, error) {
	s, err := m.Active(ctx)
	if err != nil {
		return nil, err
	}
	st, err := m.State(ctx, s)
	if err != nil {
		return nil, err
	}
	return map[string]any{"state": st, "tabs": s.wallet.Tabs(), "health": m.Health(ctx, s)}, nil
}

// chainBalance replaces the page's balance with the account's balance on
// the session's chain, when there is one.
func (m *Manager) chainBalance(ctx context.Context, s *Session, st *observation.State) {
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
