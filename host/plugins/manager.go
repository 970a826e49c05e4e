package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// Config configures the manager.
type Config struct {
	// Workspace, ArtifactsDir and LogLevel are passed to every plugin.
	Workspace    string
	ArtifactsDir string
	LogLevel     string
	// PluginPath are the --plugin-path / MMCP_PLUGIN_PATH directories.
	PluginPath []string
	// ConfigPlugins are the config file's plugin entries.
	ConfigPlugins map[string]ConfigEntry
	// TrustWorkspace runs unpinned workspace plugins
	// (--trust-workspace-plugins).
	TrustWorkspace bool
	// Settings are the config file's per-plugin settings, by plugin name.
	Settings map[string]json.RawMessage
	// ExeDir overrides the host executable's directory (tests).
	ExeDir string
	// StartTimeout bounds one plugin's start; default 5 s.
	StartTimeout time.Duration
	// RestartBudget is how many times a crashed plugin is relaunched;
	// default 3.
	RestartBudget int
	// ManifestCache is the file that keeps the plugins' descriptions
	// between hosts (DefaultManifestCache; "" for none): a plugin it
	// describes starts behind Start instead of within it.
	ManifestCache string
}

// Manager owns the plugin processes.
type Manager struct {
	cfg           Config
	log           hclog.Logger
	startTimeout  time.Duration
	restartBudget int

	plugins []*Plugin
	// slots holds the per-session plugin instances of slots 1 and up (see
	// Slot), by slot and plugin name; closed is set by Shutdown, after
	// which no instance starts.
	slotMu sync.Mutex
	slots  map[int]map[string]*Plugin
	closed bool
	// sockDir holds the plugins' go-plugin sockets; removed at Shutdown,
	// or by the next host when this one is killed (proc.RemoveStale).
	sockDir string
	// manifests caches the plugins' descriptions; behind counts the
	// plugins Start left to start behind it, warm ends once they started
	// (or failed) and the cache is saved.
	manifests *manifests
	behind    sync.WaitGroup
	warm      sync.WaitGroup
	// released is closed by Release and quit by Shutdown: the starts
	// behind Start wait for one of them.
	released    chan struct{}
	releaseOnce sync.Once
	quit        chan struct{}
	quitOnce    sync.Once
}

// releaseAfter is when the starts behind Start begin at the latest (see
// Release).
const releaseAfter = time.Second

// SocketPrefix starts the name of the directories in os.TempDir that hold
// a host's plugin sockets: mmcp-plugins-<host pid>-<random>.
const SocketPrefix = "mmcp-plugins-"

// New returns a manager; call Start to discover and start the plugins.
func New(cfg Config, log hclog.Logger) *Manager {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	m := &Manager{cfg: cfg, log: log, startTimeout: cfg.StartTimeout, restartBudget: cfg.RestartBudget,
		released: make(chan struct{}), quit: make(chan struct{})}
	if m.startTimeout == 0 {
		m.startTimeout = 5 * time.Second
	}
	if m.restartBudget == 0 {
		m.restartBudget = 3
	}
	return m
}

// Start discovers the plugins and starts them in parallel. A plugin that
// fails to start is kept with its Err and skipped; Start itself only fails
// for a malformed MMCP_REATTACH_PLUGINS. A plugin whose description the
// manifest cache holds (same binary and settings as at its last start, in
// any workspace), or else its describe run (describeRun), is described so
// at once and started behind Start: its first call waits for that start,
// and a failed start answers that call (and every later one) with the
// start's error. Started waits for them. Only a plugin that neither
// describes (a reattached one, one pinned by a checksum, one without the
// describe mode) starts within Start.
func (m *Manager) Start(ctx context.Context) error {
	reattach := map[string]*goplugin.ReattachConfig{}
	var names []string
	if env := os.Getenv(pluginhost.EnvReattach); env != "" {
		rcs, err := pluginhost.ParseReattach(env)
		if err != nil {
			return err
		}
		for n, rc := range rcs {
			reattach[n] = rc
			names = append(names, n)
		}
		sort.Strings(names)
	}
	exeDir := m.cfg.ExeDir
	if exeDir == "" {
		if exe, err := os.Executable(); err == nil {
			exe, _ = filepath.EvalSymlinks(exe)
			exeDir = filepath.Dir(exe)
		}
	}
	if dir, err := proc.TempDir(SocketPrefix); err == nil {
		m.sockDir = dir
	} else {
		m.log.Warn("plugin socket directory", "error", err)
	}
	m.manifests = loadManifests(m.cfg.ManifestCache)
	ucd, _ := os.UserConfigDir()
	specs := Discover(Sources{Reattach: names, Config: m.cfg.ConfigPlugins, PluginPath: m.cfg.PluginPath,
		Workspace: m.cfg.Workspace, UserConfigDir: ucd, ExeDir: exeDir, TrustWorkspace: m.cfg.TrustWorkspace}, m.log)
	var wg sync.WaitGroup
	for _, s := range specs {
		s.Settings = m.cfg.Settings[s.Name]
		p := &Plugin{Spec: s, m: m}
		p.reattach = reattach[s.Name]
		m.plugins = append(m.plugins, p)
		if s.Refused != "" {
			p.Err = errors.New(s.Refused) // never started
			continue
		}
		if desc, ok := m.manifests.get(s); ok && p.reattach == nil {
			m.startBehind(ctx, p, desc, "the manifest cache")
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.reattach == nil {
				desc, err := m.describeRun(ctx, s)
				if err == nil {
					m.startBehind(ctx, p, desc, "its describe run")
					return
				}
				m.log.Debug("plugin not described before its start", "name", s.Name, "path", s.Path, "reason", err)
			}
			p.mu.Lock()
			desc, err := p.start(ctx)
			p.mu.Unlock()
			if err == nil {
				p.Desc = desc
				err = validateTools(p.Desc)
				if err != nil {
					p.stop(ctx)
				}
			}
			if err != nil {
				p.Err = err
				m.log.Warn("plugin skipped", "name", s.Name, "path", s.Path, "error", err)
				return
			}
			m.manifests.put(s, desc)
			m.log.Debug("plugin started", "name", s.Name, "source", s.Source, "capabilities", p.Desc.Capabilities)
		}()
	}
	wg.Wait()
	time.AfterFunc(releaseAfter, m.Release)
	m.warm.Add(1)
	go func() {
		defer m.warm.Done()
		m.behind.Wait()
		if err := m.manifests.save(); err != nil {
			m.log.Debug("plugin manifest cache not saved", "path", m.cfg.ManifestCache, "error", err)
		}
	}()
	return nil
}

// startBehind lists p with desc, read from (the manifest cache, its
// describe run), and starts it behind Start once released (Release): p.mu
// is held until that start ends, so its first call waits for it, and a
// failed start answers that call (and every later one). The start's own
// description is cached; when it differs from desc, this host keeps
// listing desc and says so.
func (m *Manager) startBehind(ctx context.Context, p *Plugin, desc pluginhost.Description, from string) {
	p.Desc = desc
	p.mu.Lock()
	m.behind.Add(1)
	go func() {
		defer m.behind.Done()
		defer p.mu.Unlock()
		select {
		case <-m.released:
		case <-m.quit:
			p.startErr = errors.New("the host shut down before the plugin started")
			return
		}
		started, err := p.start(ctx)
		if err != nil {
			p.startErr = err
			m.log.Warn("plugin failed to start", "name", p.Spec.Name, "path", p.Spec.Path, "error", err)
			return
		}
		m.manifests.put(p.Spec, started)
		if !sameDescription(desc, started) {
			m.log.Warn("plugin describes itself otherwise at its start than "+from+" did; this host lists the tools of "+from+", the next one the new", "name", p.Spec.Name)
		}
		m.log.Debug("plugin started behind the host's start", "name", p.Spec.Name, "source", p.Spec.Source, "described by", from)
	}()
}

// Release lets the plugins Start described start behind it. The host
// calls it once its tool list is answered, so that their processes (each
// a Go binary's start, go-plugin's certificates and handshake) do not
// take the CPU from that first answer; anything that needs a plugin
// (Plugin.Conn, Started, a plugin's state) releases them itself, and
// releaseAfter after Start they start anyway.
func (m *Manager) Release() { m.releaseOnce.Do(func() { close(m.released) }) }

// Started waits until every plugin Start left to start behind it has
// started or failed and the manifest cache is saved (for what reports the
// plugins' state: doctor, plugins).
func (m *Manager) Started() {
	m.Release()
	m.warm.Wait()
}

// Plugins lists every discovered plugin, failed ones included.
func (m *Manager) Plugins() []*Plugin { return m.plugins }

// ByCapability returns the first working plugin declaring c, or nil.
func (m *Manager) ByCapability(c sdk.Capability) *Plugin {
	for _, p := range m.plugins {
		if p.Err == nil && p.Desc.Has(c) {
			return p
		}
	}
	return nil
}

// installHint says what to install for a missing capability.
var installHint = map[sdk.Capability]string{
	sdk.CapBuild:           "mmcp-plugin-build",
	sdk.CapBuildWatch:      "mmcp-plugin-build",
	sdk.CapChain:           "mmcp-plugin-chain",
	sdk.CapFixture:         "mmcp-plugin-fixture",
	sdk.CapContractSeeding: "mmcp-plugin-contracts",
	sdk.CapMockServer:      "mmcp-plugin-mockserver",
}

// Use runs fn against the plugin that provides c. It answers
// MM_CAPABILITY_MISSING when no plugin provides c and MM_PLUGIN_CRASHED when
// the plugin died during the call (it is relaunched on the next call).
func (m *Manager) Use(ctx context.Context, c sdk.Capability, fn func(*pluginhost.Conn) error) error {
	p := m.ByCapability(c)
	if p == nil {
		return capabilityMissing(c)
	}
	return p.Use(ctx, fn)
}

// capabilityMissing is MM_CAPABILITY_MISSING for c, saying what to install.
func capabilityMissing(c sdk.Capability) error {
	bin := installHint[c]
	return sdk.Errorf(sdk.CodeCapabilityMissing, "no plugin provides the %s capability: install %s next to the mmcp binary, in MMCP_PLUGIN_PATH or in <workspace>/.mmcp/plugins", c, bin).
		WithDetails(map[string]any{"capability": string(c), "install": bin})
}

// Use runs fn against this plugin (see Manager.Use).
func (p *Plugin) Use(ctx context.Context, fn func(*pluginhost.Conn) error) error {
	conn, err := p.Conn(ctx)
	if err != nil {
		return err
	}
	err = fn(conn)
	if err == nil {
		return nil
	}
	var de *sdk.Error
	if errors.As(err, &de) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// Give go-plugin a moment to notice the process is gone.
	for i := 0; i < 20; i++ {
		if dead, tail := p.crashed(); dead {
			return sdk.Errorf(sdk.CodePluginCrashed, "plugin %s crashed during the call; it is relaunched on the next call", p.Spec.Name).
				WithDetails(map[string]any{"plugin": p.Spec.Name, "stderrTail": tail})
		}
		if s, ok := status.FromError(err); !ok || s.Code() != codes.Unavailable {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return sdk.Errorf(sdk.CodeInternal, "plugin %s: %w", p.Spec.Name, err)
}

// Shutdown stops every plugin, every slot's instances first, then slot 0 in
// reverse start order, and waits for them.
func (m *Manager) Shutdown(ctx context.Context) {
	m.quitOnce.Do(func() { close(m.quit) })
	m.warm.Wait()
	m.stopSlots(ctx)
	for i := len(m.plugins) - 1; i >= 0; i-- {
		m.plugins[i].stop(ctx)
	}
	if m.sockDir != "" {
		_ = os.RemoveAll(m.sockDir)
	}
}

// validateTools checks a plugin's tool schemas compile (as JSON Schema
// object schemas) and its tool names are usable.
func validateTools(d pluginhost.Description) error {
	for _, t := range d.Tools {
		if t.Name == "" {
			return fmt.Errorf("a tool of %s has no name", d.Name)
		}
		if _, err := sdk.CompileSchema(d.Name+"_"+t.Name, t.InputSchema); err != nil {
			return fmt.Errorf("tool %s of %s: bad input schema: %w", t.Name, d.Name, err)
		}
	}
	return nil
}
