package session

import (
	"context"
	"strings"

	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// A fork (mm_launch fromCheckpoint) is a new session started from a
// checkpoint, beside the session that saved it: its own Chrome and its
// own chain, the chain started with the checkpoint's full state, the
// checkpoint's wallet state served as its fixture (pointed at the fork's
// chain), and once Chrome runs the checkpoint's mock rules, contract
// registry and tabs, as a restore sets them (restore.go).

// forkFrom is how session s's launch starts from checkpoint from: its
// chain's state, its wallet state for the fork's chain, and the build it
// was saved on, which the launched extension must be (its hash is kept as
// s's build id).
func (m *Manager) forkFrom(s *Session, from *checkpoint.Saved) *launch.From {
	f := &launch.From{Name: from.Name, Wallet: from.WalletFor}
	if c := from.Chain; c != nil && len(from.ChainState) > 0 {
		f.ChainID, f.ChainState, f.Block = c.ChainID, from.ChainState, c.BlockNumber
	}
	f.Accept = func(ctx context.Context, extension string) error {
		id, err := sdk.BuildID(ctx, extension)
		if id == "" {
			m.log.Warn("fork: the build's id is unknown, not compared with the checkpoint's", "error", err)
			return nil
		}
		s.setBuildID(id)
		return checkpoint.Mismatch(from.Checkpoint, id, 0)
	}
	return f
}

// forked gives the launched fork s the rest of checkpoint from: the mock
// rules, the contract registry, and the tabs (the active one made active).
func (m *Manager) forked(ctx context.Context, s *Session, from *checkpoint.Saved) error {
	if err := m.restoreMocks(ctx, s, from.Mocks); err != nil {
		return err
	}
	s.cps.mu.Lock()
	s.cps.contracts, s.cps.skip, s.cps.restored = from.Contracts, 0, true
	s.cps.mu.Unlock()
	for _, d := range from.Contracts {
		s.parts.Deployed[d.ContractName] = d.ContractAddress
	}
	tabs, active := m.reopenTabs(ctx, s, withExtensionID(from.Checkpoint, s.wallet.ExtensionID()))
	m.log.Info("fork", "session", s.ID, "checkpoint", from.Name, "from", from.From, "tabs", len(tabs), "active", active)
	return nil
}

// withExtensionID is c with its wallet tabs' URLs on extension id (an
// unpacked extension's id follows its folder, and a fork may load
// another copy).
func withExtensionID(c *checkpoint.Checkpoint, id string) *checkpoint.Checkpoint {
	if c.ExtensionID == "" || id == "" || c.ExtensionID == id {
		return c
	}
	out := *c
	out.Tabs = make([]checkpoint.Tab, len(c.Tabs))
	for i, t := range c.Tabs {
		t.URL = strings.Replace(t.URL, "chrome-extension://"+c.ExtensionID+"/", "chrome-extension://"+id+"/", 1)
		out.Tabs[i] = t
	}
	return &out
}

// forkView names checkpoint from in a fork's launch answer and its
// session.json.
func forkView(from *checkpoint.Saved) knowledge.CheckpointRef {
	ref := knowledge.CheckpointRef{Name: from.Name, SessionID: from.SessionID, SavedAt: tools.Timestamp(from.SavedAt),
		BuildID: from.BuildID, From: from.From}
	if from.Chain != nil {
		ref.BlockNumber = from.Chain.BlockNumber
	}
	return ref
}

// LaunchAnswer is mm_launch's answer as its step record sees it: a fork's
// record is labelled "checkpoint:fork:<name>" (its session.json names
// the checkpoint and the session that saved it).
type LaunchAnswer map[string]any

// RecordLabels implements tools.Labeled.
func (a LaunchAnswer) RecordLabels() []string {
	if ref, ok := a["fromCheckpoint"].(knowledge.CheckpointRef); ok {
		return []string{"checkpoint:fork:" + ref.Name}
	}
	return nil
}
