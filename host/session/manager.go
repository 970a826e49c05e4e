package session

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/visual"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestWallet is the Extension value that names the embedded test wallet.
const TestWallet = settings.TestWallet

// Config is what sessions need of the host's configuration.
type Config struct {
	// Prefix is the tool prefix ("mm"), for the messages that name a tool.
	Prefix string
	// Repo is the workspace, "" for none.
	Repo string
	// Path resolves a path against the workspace.
	Path func(string) string
	// Extension is --extension: a directory, TestWallet, or "".
	Extension string
	// The browser's settings (package browser's Options).
	Chrome       string
	Headless     bool
	CDPURL       string
	ArtifactsDir string
	Viewport     browser.Viewport
	MaxTabs      int
	// SettleTimeout is --settle-timeout; 0 means launch's default.
	SettleTimeout time.Duration
	// MaxSessions is --max-sessions: how many sessions run at once; 0
	// means DefaultMaxSessions.
	MaxSessions int
	// Visual keeps mm_visual_check's baselines and last results.
	Visual visual.Store
	// Mode is --mode: the environment mode (launch.ModeE2E,
	// launch.ModeProd) of an owner that never called mm_set_context; ""
	// means launch.DefaultMode.
	Mode string
	// Standby is --standby: how many sessions to keep launched ahead for
	// the default launch (standby.go); 0 keeps none.
	Standby int
	// StandbyCheckpoint is --standby-checkpoint: the checkpoint (a name,
	// <sessionId>/<name> or a file) one fork of which is kept launched
	// ahead; "" none.
	StandbyCheckpoint string
}

// DefaultMaxSessions is how many wallet sessions one host runs at once
// unless --max-sessions says otherwise.
const DefaultMaxSessions = settings.DefaultMaxSessions

// Manager owns the wallet sessions of a host: at most one per owner (the
// MCP connection a call comes from, see tools.Owner).
type Manager struct {
	cfg       Config
	log       hclog.Logger
	plugins   *plugins.Manager
	knowledge *knowledge.Store
	rec       *Recorder

	mu       sync.Mutex
	sessions map[string]*Session // by owner
	modes    map[string]string   // by owner: the mode mm_set_context chose
	slots    map[int]bool        // the slots in use, launching sessions' too
	// watchOwner is the owner whose call started the watch build, "" for
	// none (watch.go).
	watchOwner string
	// standby is the pool of sessions launched ahead (standby.go).
	standby standby

	walletOnce sync.Once
	walletDir  string // the unpacked embedded test wallet, when used
	walletErr  error
}

// NewManager returns a manager with no session.
func NewManager(cfg Config, pl *plugins.Manager, k *knowledge.Store, log hclog.Logger) *Manager {
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.Mode == "" {
		cfg.Mode = launch.DefaultMode
	}
	m := &Manager{cfg: cfg, log: log, plugins: pl, knowledge: k, sessions: map[string]*Session{}, modes: map[string]string{}, slots: map[int]bool{}}
	m.rec = &Recorder{m: m}
	m.standby = standby{want: cfg.Standby, checkpoint: cfg.StandbyCheckpoint, launchAhead: m.launchAhead}
	return m
}

// KeepStandby starts the sessions --standby keeps launched ahead: a host
// that serves calls (stdio, HTTP, mmcp test) does, one that only lists
// (mmcp plugins, doctor) does not.
func (m *Manager) KeepStandby() { m.refill() }

// Recorder returns the recorder of the sessions' steps (tools.Recorder).
func (m *Manager) Recorder() *Recorder { return m.rec }

// tool names a tool with the configured prefix.
func (m *Manager) tool(base string) string { return m.cfg.Prefix + "_" + base }

// get returns the owner's session, or nil.
func (m *Manager) get(ctx context.Context) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessions[tools.Owner(ctx)]
}

// set makes s the owner's session (nil: none, and the old one's slot is
// free again).
func (m *Manager) set(ctx context.Context, s *Session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s == nil {
		if old := m.sessions[tools.Owner(ctx)]; old != nil {
			delete(m.slots, old.slot)
		}
		delete(m.sessions, tools.Owner(ctx))
		return
	}
	s.owner = tools.Owner(ctx)
	m.sessions[s.owner] = s
}

// Active returns the session a call acts on, MM_NO_ACTIVE_SESSION, or
// MM_BROWSER_CLOSED when its Chrome went away.
func (m *Manager) Active(ctx context.Context) (*Session, error) {
	s := m.get(ctx)
	if s == nil {
		return nil, sdk.Errorf(sdk.CodeNoActiveSession, "no active session: call %s first", m.tool("launch"))
	}
	if err := s.wallet.Alive(); err != nil {
		return nil, err
	}
	return s, nil
}

// Classify implements tools.Classifier: a call that failed because its
// session's Chrome went away under it answers MM_BROWSER_CLOSED (see
// browser.Chrome.Classify), and the host log says so; a chain tool that
// finds no chain running (MM_CHAIN_NOT_RUNNING: the plugin's word, which
// knows no session) in a session whose chain died answers the session's
// MM_CHAIN_DOWN, as every other tool that needs the chain does.
func (m *Manager) Classify(ctx context.Context, tool string, err error) error {
	s := m.get(ctx)
	if s == nil {
		return err
	}
	if sdk.AsError(err).Code == sdk.CodeChainNotRunning {
		if down := m.ChainAlive(context.WithoutCancel(ctx), s); down != nil {
			return down
		}
		return err
	}
	if s.wallet == nil {
		return err
	}
	cerr := s.wallet.Classify(err)
	if cerr != err {
		m.log.Error("a call failed: its session's Chrome went away", "tool", tool, "session", s.ID, "cause", err)
	}
	return cerr
}

// errNoPage answers a call that needs a page when the active one is gone.
var errNoPage = sdk.Errorf(sdk.CodeNoActiveSession, "the session has no active page: switch to a tab with mm_switch_to_tab")

// Page returns the active session when it has an active page.
func (m *Manager) Page(ctx context.Context) (*Session, error) {
	s, err := m.Active(ctx)
	if err != nil {
		return nil, err
	}
	if s.wallet.ActivePage() == nil {
		return nil, errNoPage
	}
	return s, nil
}

// SessionID implements tools.Observer: the id of the session a call
// acts on, or "".
func (m *Manager) SessionID(ctx context.Context) string {
	if s := m.get(ctx); s != nil {
		return s.ID
	}
	return ""
}

// Close tears every session down, the standby ones too, and removes the
// unpacked test wallet.
func (m *Manager) Close() {
	m.closeStandby()
	m.mu.Lock()
	all := m.sessions
	m.sessions, m.slots = map[string]*Session{}, map[int]bool{}
	m.mu.Unlock()
	for _, s := range all {
		m.teardown(s)
	}
	if m.walletDir != "" {
		_ = os.RemoveAll(filepath.Dir(m.walletDir))
	}
}

// claimSlot takes the lowest free slot, or answers MM_SESSION_LIMIT when
// MaxSessions sessions run (or launch), listing those owner may act on.
func (m *Manager) claimSlot(owner string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.freeSlot(); ok {
		return n, nil
	}
	return 0, sdk.Errorf(sdk.CodeSessionLimit, "this host already runs %d sessions, its limit: clean one up with %s, or start the host with a higher --max-sessions", m.cfg.MaxSessions, m.tool("cleanup")).
		WithDetails(map[string]any{"maxSessions": m.cfg.MaxSessions, "sessions": m.list(owner)})
}

// freeSlot claims the lowest free slot, with m.mu held.
func (m *Manager) freeSlot() (int, bool) {
	for n := 0; n < m.cfg.MaxSessions; n++ {
		if !m.slots[n] {
			m.slots[n] = true
			return n, true
		}
	}
	return 0, false
}

// releaseSlot frees a slot whose launch failed.
func (m *Manager) releaseSlot(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.slots, n)
}

// byID returns the session with id, or nil.
func (m *Manager) byID(id string) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		if s.ID == id {
			return s
		}
	}
	return nil
}
