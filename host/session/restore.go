package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
	"github.com/mmcp-dev/mmcp/sdk"
)

// RestoreResult is mm_checkpoint_restore's answer.
type RestoreResult struct {
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
	// Chain is how the chain went back: "revert" (to the checkpoint's
	// snapshot), "loadState" (its saved state loaded over the running
	// chain, when the snapshot was gone) or "" (no chain).
	Chain       string   `json:"chain"`
	BlockNumber uint64   `json:"blockNumber,omitempty"`
	Screen      string   `json:"screen"`
	Unlocked    bool     `json:"unlocked"`
	Tabs        []string `json:"tabs"`
	ActiveURL   string   `json:"activeUrl,omitempty"`
	// Ms is the time of each step: fixture (the mock rules, the contract
	// registry and the wallet state served), chain (what the revert took
	// beyond them: they run together), reload, tabs.
	Ms map[string]int64 `json:"ms"`
	// ReloadSplit is the reload's own split (wallet.ReloadResult.SplitMs).
	ReloadSplit map[string]int64 `json:"reloadSplitMs,omitempty"`
	RestoreMs   int64            `json:"restoreMs"`
}

// RestoreCheckpoint takes the call's session back to its checkpoint name, in place:
// the chain reverted (and snapshotted again, so that it can be restored
// again), the checkpoint's wallet state served and the extension reloaded
// and unlocked (Reload), the mock rules and the contract registry as
// saved, the saved tabs reopened (dapps reloaded, others closed) and the
// active one made active. A checkpoint of another build or chain id is
// MM_CHECKPOINT_MISMATCH; none of that name MM_CHECKPOINT_NOT_FOUND.
func (m *Manager) RestoreCheckpoint(ctx context.Context, name string) (RestoreResult, error) {
	return onActive(ctx, m, func(s *Session) (RestoreResult, error) { return m.restoreCheckpoint(ctx, s, name) })
}

func (m *Manager) restoreCheckpoint(ctx context.Context, s *Session, name string) (RestoreResult, error) {
	start := time.Now()
	res := RestoreResult{Name: name, SessionID: s.ID, Ms: map[string]int64{}}
	lap := func(step string) {
		now := time.Now()
		res.Ms[step] = now.Sub(start).Milliseconds() - sum(res.Ms)
	}
	st := m.CheckpointStore(s.ID)
	c, err := st.Load(name)
	if err != nil {
		return res, err
	}
	var chainID int64
	if s.parts.Chain != nil {
		chainID = s.parts.Chain.ChainID
	}
	if err := checkpoint.Mismatch(c, s.BuildID(), chainID); err != nil {
		return res, err
	}
	// The chain revert runs beside the mock rules and the fixture swap.
	chainDone := make(chan error, 1)
	go func() {
		var err error
		if c.Chain != nil && s.parts.Chain != nil {
			res.Chain, err = m.revertChain(ctx, s, st, name)
			res.BlockNumber = c.Chain.BlockNumber
		}
		chainDone <- err
	}()
	if s.parts.Fixture == nil {
		<-chainDone
		return res, sdk.Errorf(sdk.CodeFixtureDown, "the session serves no wallet state (no fixture plugin): a checkpoint cannot be restored in it")
	}
	err = m.restoreMocks(ctx, s, c.Mocks)
	if err == nil {
		m.restoreContracts(ctx, s, c.Contracts)
		req := sdk.StartFixtureRequest{State: c.Wallet, FixtureOptions: sdk.FixtureOptions{Port: s.parts.Fixture.Port, Origin: s.parts.FixtureOrigin}}
		var started sdk.StartFixtureResponse
		started, err = m.plugins.Slot(s.slot).Fixture().StartFixture(ctx, req)
		if err == nil {
			// A fixture plugin that died since the launch and was
			// started again serves the state at another origin port.
			s.parts.FixtureServed(req, started.Status)
		}
	}
	lap("fixture")
	if cerr := <-chainDone; cerr != nil {
		return res, cerr
	}
	if err != nil {
		return res, err
	}
	lap("chain")
	r, err := m.Reload(ctx, s, s.BuildID(), wallet.RestartBackground)
	if err != nil && sdk.AsError(err).Code == sdk.CodeReloadFailed && ctx.Err() == nil {
		// Seen once in a row of restores on the test wallet: the reloaded
		// worker's first storage call failed ("No SW") and the wallet
		// never came up; a second reload brings it back.
		m.log.Warn("checkpoint restore: the reload failed, reloading again", "session", s.ID, "error", err)
		r, err = m.Reload(ctx, s, s.BuildID(), wallet.RestartBackground)
	}
	if err != nil {
		return res, err
	}
	res.Screen, res.Unlocked, res.ReloadSplit = r.Screen, r.IsUnlocked, r.SplitMs
	lap("reload")
	res.Tabs, res.ActiveURL = m.reopenTabs(ctx, s, c)
	lap("tabs")
	if wst, err := s.wallet.State(ctx); err == nil {
		res.Screen = wst.CurrentScreen
	}
	res.RestoreMs = time.Since(start).Milliseconds()
	return res, nil
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// revertChain reverts session s's chain to checkpoint name's snapshot and
// takes a new one for the next restore; when that snapshot is gone (a
// revert to an earlier checkpoint dropped it) the saved state is loaded
// over the running chain instead.
func (m *Manager) revertChain(ctx context.Context, s *Session, st checkpoint.Store, name string) (string, error) {
	chain := m.plugins.Slot(s.slot).Chain()
	how := "revert"
	id := s.cps.snapshot(name)
	if _, err := chain.Revert(ctx, sdk.RevertRequest{ID: id}); id == "" || err != nil {
		dump, err := st.ChainState(name)
		if err != nil || dump == nil {
			return "", sdk.Errorf(sdk.CodeCheckpointNotFound, "checkpoint %s has no chain state to load (%v): save it again", name, err)
		}
		var state string
		if err := json.Unmarshal(dump, &state); err != nil {
			return "", sdk.Errorf(sdk.CodeInvalidInput, "checkpoint %s's chain state does not decode: %v", name, err)
		}
		var ok bool
		if err := jsonrpc.Call(ctx, s.parts.Chain.RPCURL, "anvil_loadState", []any{state}, &ok); err != nil {
			return "", sdk.Errorf(sdk.CodeChainDown, "loading checkpoint %s's chain state: %v", name, err)
		}
		how = "loadState"
	}
	taken, err := chain.Snapshot(ctx, sdk.SnapshotRequest{})
	if err != nil {
		return "", err
	}
	s.cps.setSnapshot(name, taken.ID)
	return how, nil
}

// restoreMocks replaces the mocks declared with add_mock by the saved ones.
func (m *Manager) restoreMocks(ctx context.Context, s *Session, mocks []json.RawMessage) error {
	found, err := m.mockCall(ctx, s, "clear", `{"mocks":true,"requests":false}`, nil)
	if err != nil || !found {
		return err
	}
	for i := len(mocks) - 1; i >= 0; i-- { // listed newest first
		var mock map[string]any
		if err := json.Unmarshal(mocks[i], &mock); err != nil {
			return sdk.Errorf(sdk.CodeInvalidInput, "a saved mock does not decode: %v", err)
		}
		delete(mock, "source")
		delete(mock, "hits")
		delete(mock, "exhausted")
		b, _ := json.Marshal(mock)
		if _, err := m.mockCall(ctx, s, "add_mock", string(b), nil); err != nil {
			return err
		}
	}
	return nil
}

// restoreContracts makes session s's contract registry what it was at the
// checkpoint: the seeder's registry only grows, so the session lists the
// saved deployments and those the seeder made after this restore.
func (m *Manager) restoreContracts(ctx context.Context, s *Session, saved []sdk.Deployment) {
	n := 0
	if s.parts.Contracts {
		if ds, err := m.plugins.Slot(s.slot).ContractSeeder().Deployed(ctx, sdk.DeployedRequest{}); err == nil {
			n = len(ds.Deployments)
		}
	}
	s.cps.mu.Lock()
	s.cps.contracts, s.cps.skip, s.cps.restored = saved, n, true
	s.cps.mu.Unlock()
	s.parts.Deployed = map[string]string{}
	for _, d := range saved {
		s.parts.Deployed[d.ContractName] = d.ContractAddress
	}
}

// registry is session s's deployments as the last restore left them
// (seeded are the seeder's own).
func (s *Session) registry(seeded []sdk.Deployment) []sdk.Deployment {
	s.cps.mu.Lock()
	defer s.cps.mu.Unlock()
	if !s.cps.restored {
		return seeded
	}
	out := append([]sdk.Deployment{}, s.cps.contracts...)
	if s.cps.skip < len(seeded) {
		out = append(out, seeded[s.cps.skip:]...)
	}
	return out
}

// reopenTabs makes session s's tabs checkpoint c's: dapp and other pages
// not saved are closed, saved ones reloaded or opened again, and the
// saved active tab made active. It answers the URLs open and the active
// one.
func (m *Manager) reopenTabs(ctx context.Context, s *Session, c *checkpoint.Checkpoint) ([]string, string) {
	saved := map[string]bool{}
	for _, t := range c.Tabs {
		saved[t.URL] = true
	}
	for _, t := range s.wallet.FindTabs("", "") {
		if t.Role != browser.RoleExtension && !t.Home && !saved[t.URL] {
			if _, err := s.wallet.CloseTab(ctx, "", t.URL); err != nil {
				m.log.Warn("checkpoint restore: closing a tab", "url", t.URL, "error", err)
			}
		}
	}
	for _, t := range c.Tabs {
		if t.Role == browser.RoleExtension {
			continue // the reload reopened the wallet page
		}
		if open := s.wallet.FindTabs("", t.URL); len(open) > 0 && open[len(open)-1].Page != nil {
			p := open[len(open)-1].Page.Context(ctx)
			if err := p.Reload(); err == nil {
				_ = p.WaitLoad()
			} else {
				m.log.Warn("checkpoint restore: reloading a tab", "url", t.URL, "error", err)
			}
			continue
		}
		if _, err := s.wallet.OpenTab(ctx, t.URL); err != nil {
			m.log.Warn("checkpoint restore: reopening a tab", "url", t.URL, "error", err)
		}
	}
	active := ""
	if a, ok := c.Active(); ok {
		if a.Role == browser.RoleExtension {
			if page, err := s.wallet.ExtensionTab(ctx); err == nil {
				s.wallet.ReturnTo(ctx, page, a.URL)
			}
		}
		if r, err := s.wallet.SwitchTab(ctx, "", a.URL); err == nil {
			active = r.ActiveTab.URL
		} else {
			m.log.Warn("checkpoint restore: the active tab", "url", a.URL, "error", err)
		}
	}
	var urls []string
	for _, t := range s.wallet.FindTabs("", "") {
		urls = append(urls, t.URL)
	}
	return urls, active
}

// RecordLabels implements tools.Labeled: "checkpoint:restore:<name>".
func (r RestoreResult) RecordLabels() []string {
	if r.Name == "" {
		return nil
	}
	return []string{"checkpoint:restore:" + r.Name}
}
