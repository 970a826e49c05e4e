package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// session is the one active browser session of a host. Every access happens
// inside a tool call, under the runner's session lock.
type session struct {
	id        string
	createdAt time.Time
	browser   *browser.Session
	// refs is the ref map of the latest answer the agent saw
	// (mm_accessibility_snapshot, mm_describe_screen); a tab switch drops
	// it.
	refs *discovery.RefMap

	parts *launch.Parts // what the launch started (chain, fixture, contracts, browser)
	// chainRestarts is the chain plugin's relaunch count at launch: more
	// later means it crashed, and took the session's Anvil with it.
	chainRestarts int
}

func newSessionID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "mm-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// active returns the session, MM_NO_ACTIVE_SESSION, or MM_BROWSER_CLOSED
// when its Chrome went away.
func (h *Host) active() (*session, error) {
	if h.sess == nil {
		return nil, sdk.Errorf(sdk.CodeNoActiveSession, "no active session: call %s first", h.name("launch"))
	}
	if err := h.sess.browser.Alive(); err != nil {
		return nil, err
	}
	return h.sess, nil
}

// SessionID implements tools.Observer.
func (h *Host) SessionID() string {
	id, _ := h.sessID.Load().(string)
	return id
}

// setSession makes s the active session (nil: none); the caller holds the
// session lock.
func (h *Host) setSession(s *session) {
	h.sess = s
	id := ""
	if s != nil {
		id = s.id
	}
	h.sessID.Store(id)
}

// Observe implements tools.Observer: the state, and with full the visible
// testids and the trimmed tree. It never touches the agent's refs; the node
// of the element ref names (the call's a11yRef, if any) carries that ref.
func (h *Host) Observe(ctx context.Context, full bool, ref string) *observation.Observation {
	return h.observe(ctx, full, func(page *rod.Page, s *session) ([]observation.TestIDItem, []observation.A11yNode, error) {
		return discovery.Observe(ctx, page, discovery.DefaultTestIDLimit, s.refs, ref)
	})
}

// describe is the observation the agent is given (mm_describe_screen): its
// refs replace the agent's.
func (h *Host) describe(ctx context.Context) *observation.Observation {
	return h.observe(ctx, true, func(page *rod.Page, s *session) ([]observation.TestIDItem, []observation.A11yNode, error) {
		ids, nodes, refs, err := discovery.Describe(ctx, page, discovery.DefaultTestIDLimit)
		if err == nil {
			s.refs = refs
		}
		return ids, nodes, err
	})
}

func (h *Host) observe(ctx context.Context, full bool, walk func(*rod.Page, *session) ([]observation.TestIDItem, []observation.A11yNode, error)) *observation.Observation {
	s := h.sess
	if s == nil || s.browser.Alive() != nil {
		return nil // nothing to observe in a dead browser (and never wait on it)
	}
	obs := &observation.Observation{TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
	st, err := s.browser.State(ctx)
	if err != nil {
		h.log.Debug("observe: state", "error", err)
	}
	obs.State = st
	if !full {
		return obs
	}
	page := s.browser.ActivePage()
	if page == nil {
		return obs
	}
	ids, nodes, err := walk(page, s)
	if err != nil {
		h.log.Debug("observe: discovery", "error", err)
		return obs
	}
	obs.TestIDs, obs.A11y.Nodes = ids, nodes
	return obs
}

// state is mm_get_state's state: the browser's view, with the balance read
// from the chain when one runs.
func (h *Host) state(ctx context.Context, s *session) (observation.State, error) {
	st, err := s.browser.State(ctx)
	if err != nil {
		return st, err
	}
	h.chainBalance(ctx, s, &st)
	return st, nil
}

// chainBalance replaces the page's balance with the account's balance on
// the session's chain, when there is one.
func (h *Host) chainBalance(ctx context.Context, s *session, st *observation.State) {
	if s.parts.Chain == nil || st.AccountAddress == nil || *st.AccountAddress == "" {
		return
	}
	bal, err := balanceOf(ctx, s.parts.Chain.RPCURL, *st.AccountAddress)
	if err != nil {
		// Never report what the page shows from a dead chain as current.
		h.log.Debug("balance from chain", "error", err)
		st.Balance = nil
		return
	}
	st.Balance = &bal
}
