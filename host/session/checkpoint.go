package session

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// checkpoints is what a session keeps of its checkpoints beside their
// files: each one's chain snapshot (an evm_snapshot id is only good on the
// chain that took it, and once: a restore takes a new one), and the
// contract registry as the last restore set it.
type checkpoints struct {
	mu    sync.Mutex
	snaps map[string]string // checkpoint name -> snapshot id
	// contracts, when restored, is the registry as at the restored
	// checkpoint; skip the seeder's entries it already held then (the
	// deployments after the restore follow).
	contracts []sdk.Deployment
	skip      int
	restored  bool
}

func (c *checkpoints) snapshot(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snaps[name]
}

func (c *checkpoints) setSnapshot(name, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snaps == nil {
		c.snaps = map[string]string{}
	}
	c.snaps[name] = id
}

// Checkpoints is the folder of every session's checkpoints and the
// imported ones: <artifacts>/checkpoints.
func (m *Manager) Checkpoints() checkpoint.Root {
	return checkpoint.Root(filepath.Join(m.cfg.ArtifactsDir, "checkpoints"))
}

// CheckpointStore is session id's checkpoints: <artifacts>/checkpoints/<id>/.
func (m *Manager) CheckpointStore(id string) checkpoint.Store { return m.Checkpoints().Store(id) }

// SaveResult is mm_checkpoint_save's answer.
type SaveResult struct {
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	BuildID   string `json:"buildId"`
	ChainID   int64  `json:"chainId,omitempty"`
	Block     uint64 `json:"blockNumber,omitempty"`
	Tabs      int    `json:"tabs"`
	Contracts int    `json:"contracts"`
	Mocks     int    `json:"mocks"`
	SaveMs    int64  `json:"saveMs"`
}

// SaveCheckpoint saves the call's session as checkpoint name (replacing one of that
// name): a chain snapshot to go back to in place and the chain's full
// state, the wallet's persisted state read from the extension, the open
// tabs and wallet screen, the mock rules, the deployed contracts and the
// build id.
func (m *Manager) SaveCheckpoint(ctx context.Context, name string) (SaveResult, error) {
	return onActive(ctx, m, func(s *Session) (SaveResult, error) { return m.saveCheckpoint(ctx, s, name) })
}

func (m *Manager) saveCheckpoint(ctx context.Context, s *Session, name string) (SaveResult, error) {
	start := time.Now()
	if err := checkpoint.CheckName(name); err != nil {
		return SaveResult{}, err
	}
	c := &checkpoint.Checkpoint{Name: name, SavedAt: start.UTC(), SessionID: s.ID, ExtensionID: s.wallet.ExtensionID()}
	var err error
	if c.BuildID, err = m.buildIDOf(ctx, s); err != nil {
		return SaveResult{}, err
	}
	if c.Wallet, err = m.walletState(ctx, s); err != nil {
		return SaveResult{}, err
	}
	c.Tabs, c.Screen = m.openTabs(ctx, s)
	if c.Contracts, err = m.deployed(ctx, s); err != nil {
		return SaveResult{}, err
	}
	if c.Mocks, err = m.mockRules(ctx, s); err != nil {
		return SaveResult{}, err
	}
	var dump []byte
	var snap string
	if ch := s.parts.Chain; ch != nil {
		if err := m.ChainAlive(ctx, s); err != nil {
			return SaveResult{}, err
		}
		var block string
		if err := jsonrpc.Call(ctx, ch.RPCURL, "eth_blockNumber", nil, &block); err != nil {
			return SaveResult{}, sdk.Errorf(sdk.CodeChainDown, "reading the chain's block: %v", err)
		}
		var n uint64
		_, _ = fmt.Sscanf(block, "0x%x", &n)
		c.Chain = &checkpoint.Chain{ChainID: ch.ChainID, BlockNumber: n, Port: ch.Port}
		var state json.RawMessage
		if err := jsonrpc.Call(ctx, ch.RPCURL, "anvil_dumpState", nil, &state); err != nil {
			return SaveResult{}, sdk.Errorf(sdk.CodeChainDown, "dumping the chain's state: %v", err)
		}
		dump = state
		taken, err := m.plugins.Slot(s.slot).Chain().Snapshot(ctx, sdk.SnapshotRequest{})
		if err != nil {
			return SaveResult{}, err
		}
		snap = taken.ID
	}
	st := m.CheckpointStore(s.ID)
	if err := st.Save(c, dump); err != nil {
		return SaveResult{}, sdk.Errorf(sdk.CodeInternal, "writing checkpoint %s: %v", name, err)
	}
	if snap != "" {
		s.cps.setSnapshot(name, snap)
	}
	res := SaveResult{Name: name, SessionID: s.ID, Path: st.Path(name), BuildID: c.BuildID, Tabs: len(c.Tabs),
		Contracts: len(c.Contracts), Mocks: len(c.Mocks), SaveMs: time.Since(start).Milliseconds()}
	if c.Chain != nil {
		res.ChainID, res.Block = c.Chain.ChainID, c.Chain.BlockNumber
	}
	return res, nil
}

// buildIDOf is session s's build id, hashed now when the launch's hash has
// not ended.
func (m *Manager) buildIDOf(ctx context.Context, s *Session) (string, error) {
	if id := s.BuildID(); id != "" {
		return id, nil
	}
	id, err := sdk.BuildID(ctx, s.parts.Extension)
	if id == "" && err != nil {
		return "", sdk.Errorf(sdk.CodeInternal, "hashing the build: %v", err)
	}
	s.buildID.CompareAndSwap(nil, &id)
	return id, nil
}

// storageJS reads the extension's persisted state (chrome.storage.local)
// as the fixture server serves it: {data, meta}, a split store's keys
// gathered under data. It runs in an extension page, in its isolated
// world (the page's own globals may be scuttled), else in its main world.
const storageJS = `(async () => {
  const c = globalThis.chrome;
  if (!c || !c.storage || !c.storage.local) return null;
  const all = await c.storage.local.get(null);
  if (all.data && typeof all.data === 'object') return { data: all.data, meta: all.meta || {} };
  const { meta, ...data } = all;
  return Object.keys(data).length ? { data, meta: meta || {} } : null;
})()`

// walletState reads the wallet's persisted state from one of its pages,
// else (a MetaMask test build keeps it in memory) from its service worker
// (workerstate.go).
func (m *Manager) walletState(ctx context.Context, s *Session) (json.RawMessage, error) {
	page, err := s.wallet.ExtensionTab(ctx)
	if err != nil {
		return nil, err
	}
	var state json.RawMessage
	if err := discovery.Eval(ctx, page, storageJS, discovery.EvalOptions{Idempotent: true}, &state); err != nil || isNull(state) {
		if state, err = m.workerState(ctx, s); err != nil || !isNull(state) {
			return state, err
		}
		state, err = mainWorld(ctx, page, storageJS)
		if err != nil {
			return nil, sdk.Errorf(sdk.CodeInternal, "reading the wallet's persisted state: %v", err)
		}
	}
	if isNull(state) {
		return nil, sdk.Errorf(sdk.CodeInternal, "the wallet keeps no persisted state in chrome.storage.local: this wallet cannot be checkpointed")
	}
	return state, nil
}

func isNull(b json.RawMessage) bool { return len(b) == 0 || string(b) == "null" }

// mainWorld evaluates expr in page's main world and answers its JSON value.
func mainWorld(ctx context.Context, page *rod.Page, expr string) (json.RawMessage, error) {
	r, err := proto.RuntimeEvaluate{Expression: "(async () => JSON.stringify(await " + expr + "))()", AwaitPromise: true, ReturnByValue: true}.Call(page.Context(ctx))
	if err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("%s", r.ExceptionDetails.Text)
	}
	return json.RawMessage(r.Result.Value.Str()), nil
}

// openTabs lists session s's tabs (the active one marked) and the wallet
// screen.
func (m *Manager) openTabs(ctx context.Context, s *Session) ([]checkpoint.Tab, string) {
	act, _ := s.wallet.ActiveTab()
	var out []checkpoint.Tab
	for _, t := range s.wallet.FindTabs("", "") {
		if t.Role == browser.RoleNotification {
			continue // a popup belongs to a request the chain revert undoes
		}
		out = append(out, checkpoint.Tab{URL: t.URL, Role: t.Role, Active: t.ID == act.ID, Home: t.Home})
	}
	screen := ""
	if st, err := s.wallet.State(ctx); err == nil {
		screen = st.CurrentScreen
	}
	return out, screen
}

// mockRules are the mock server's mocks declared with its add_mock tool,
// nil when no mock server runs.
func (m *Manager) mockRules(ctx context.Context, s *Session) ([]json.RawMessage, error) {
	var list struct {
		Mocks []json.RawMessage `json:"mocks"`
	}
	found, err := m.mockCall(ctx, s, "mocks", `{}`, &list)
	if err != nil || !found {
		return nil, err
	}
	var out []json.RawMessage
	for _, raw := range list.Mocks {
		var info struct {
			Source string `json:"source"`
		}
		if json.Unmarshal(raw, &info) == nil && info.Source == "tool" {
			out = append(out, raw)
		}
	}
	return out, nil
}

// mockCall calls the mock server plugin's own tool; found is false when
// the session runs none.
func (m *Manager) mockCall(ctx context.Context, s *Session, tool, args string, out any) (found bool, err error) {
	if s.parts.MockServer == nil {
		return false, nil
	}
	p := m.plugins.Slot(s.slot).ByCapability(sdk.CapMockServer)
	if p == nil {
		return false, nil
	}
	err = p.Use(ctx, func(c *pluginhost.Conn) error {
		raw, err := c.CallTool(ctx, tool, json.RawMessage(args), nil)
		if err != nil || out == nil {
			return err
		}
		return json.Unmarshal(raw, out)
	})
	return true, err
}

// RecordLabels implements tools.Labeled: "checkpoint:save:<name>", so
// that mm_knowledge_search finds where a checkpoint was saved.
func (r SaveResult) RecordLabels() []string {
	if r.Name == "" {
		return nil
	}
	return []string{"checkpoint:save:" + r.Name}
}
