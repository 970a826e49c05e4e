package plugins

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// Plugin is one discovered plugin: its spec, its description once started,
// and why it failed if it did.
type Plugin struct {
	Spec Spec
	// Desc is the plugin's Describe output (valid when Err is nil).
	Desc pluginhost.Description
	// Err says why the plugin is not in use.
	Err error
	// Rejected lists the plugin's tools the host refused, with the reason.
	Rejected []string

	m        *Manager
	reattach *goplugin.ReattachConfig
	// slot is the session slot of a per-session instance (0: the plugin
	// started at Start). An instance starts on its first call (unstarted
	// until then), not at Start.
	slot      int
	unstarted bool

	mu       sync.Mutex
	client   *goplugin.Client
	conn     *pluginhost.Conn
	tail     *proc.Tail
	restarts int
	// startErr is why the start behind Manager.Start failed (a plugin
	// described from the manifest cache); every call answers it.
	startErr error
}

// lineWriter feeds whole lines of a plugin's stderr into a Tail.
type lineWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	tail *proc.Tail
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.Reset()
			w.buf.WriteString(line)
			return len(p), nil
		}
		w.tail.Add(strings.TrimRight(line, "\n"))
	}
}

// pluginEnv is the environment of a plugin's process: the host's, the log
// level, and the host's plugin directory as go-plugin's socket directory
// and TMPDIR. go-plugin (v1.8) puts the plugin's socket in
// PLUGIN_UNIX_SOCKET_DIR, else in the plugin's TMPDIR, where a killed
// plugin leaves it; the plugin's temporary files and its children's go
// there too. The host removes the directory at shutdown, or the next host
// does (proc.RemoveStale).
func (m *Manager) pluginEnv() []string {
	env := append(os.Environ(), sdk.EnvLogLevel+"="+m.cfg.LogLevel)
	if m.sockDir != "" {
		env = append(env, goplugin.EnvUnixSocketDir+"="+m.sockDir, "TMPDIR="+m.sockDir)
	}
	return env
}

// start launches (or attaches to) the plugin and configures it, and
// answers its description. The caller holds p.mu.
func (p *Plugin) start(ctx context.Context) (pluginhost.Description, error) {
	cfg := &goplugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: pluginhost.PluginSet(),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           p.m.log.Named(p.Spec.Name),
		StartTimeout:     p.m.startTimeout,
	}
	p.tail = proc.NewTail(30)
	if p.reattach != nil {
		cfg.Reattach = p.reattach
		cfg.Plugins = pluginhost.PluginSet()[sdk.APIVersion]
	} else {
		if p.Spec.SHA256 != "" {
			sum, err := hex.DecodeString(p.Spec.SHA256)
			if err != nil {
				return pluginhost.Description{}, fmt.Errorf("sha256 pin of %s is not hex: %w", p.Spec.Name, err)
			}
			cfg.SecureConfig = &goplugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
		}
		cmd := exec.Command(p.Spec.Path)
		// The plugin dies with the host even when the host is SIGKILLed;
		// its SDK watchdog then stops its own children.
		proc.SetupGraceful(cmd)
		cmd.Env = p.m.pluginEnv()
		// After ours, go-plugin would append the host's environment again,
		// whose TMPDIR would win.
		cfg.SkipHostEnv = true
		cfg.Cmd = cmd
		cfg.AutoMTLS = true
		// Raw stderr (and what go-plugin relays of os.Stderr once the
		// plugin serves) feeds the crash tail; a stray print to a plugin's
		// stdout is logged, never passed on.
		stderr := &lineWriter{tail: p.tail}
		cfg.Stderr = stderr
		cfg.SyncStderr = stderr
		cfg.SyncStdout = p.m.log.Named(p.Spec.Name).StandardWriter(&hclog.StandardLoggerOptions{ForceLevel: hclog.Warn})
	}
	client := goplugin.NewClient(cfg)
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		if errors.Is(err, goplugin.ErrChecksumsDoNotMatch) {
			return pluginhost.Description{}, fmt.Errorf("checksum of %s does not match its sha256 pin; rebuild the pin or the binary", p.Spec.Path)
		}
		return pluginhost.Description{}, fmt.Errorf("start %s: %w%s", p.Spec.Name, err, p.tailSuffix())
	}
	conn, err := pluginhost.Dispense(rpc)
	if err != nil {
		client.Kill()
		return pluginhost.Description{}, fmt.Errorf("dispense %s: %w", p.Spec.Name, err)
	}
	dctx, cancel := context.WithTimeout(ctx, p.m.startTimeout)
	defer cancel()
	desc, err := conn.Describe(dctx)
	if err != nil {
		client.Kill()
		return pluginhost.Description{}, fmt.Errorf("describe %s: %w", p.Spec.Name, err)
	}
	if desc.APIVersion != sdk.APIVersion {
		client.Kill()
		return pluginhost.Description{}, fmt.Errorf("%s speaks plugin API %d, the host speaks %d", p.Spec.Name, desc.APIVersion, sdk.APIVersion)
	}
	if err := conn.Configure(dctx, sdk.Config{Workspace: p.m.cfg.Workspace, ArtifactsDir: p.m.cfg.ArtifactsDir,
		LogLevel: p.m.cfg.LogLevel, Settings: p.Spec.Settings}); err != nil {
		client.Kill()
		return pluginhost.Description{}, fmt.Errorf("configure %s: %w", p.Spec.Name, err)
	}
	p.client, p.conn = client, conn
	return desc, nil
}

func (p *Plugin) tailSuffix() string {
	if p.tail == nil {
		return ""
	}
	if t := p.tail.String(); t != "" {
		return "; stderr: " + t
	}
	return ""
}

// Conn returns a live connection, relaunching a crashed plugin within the
// restart budget.
func (p *Plugin) Conn(ctx context.Context) (*pluginhost.Conn, error) {
	p.lock()
	defer p.mu.Unlock()
	if p.Err != nil {
		return nil, p.Err
	}
	if p.startErr != nil {
		return nil, sdk.Errorf(sdk.CodePluginCrashed, "plugin %s failed to start: %w", p.Spec.Name, p.startErr)
	}
	if p.client != nil && !p.client.Exited() {
		return p.conn, nil
	}
	if p.m.isClosed() {
		return nil, sdk.Errorf(sdk.CodeInternal, "plugin %s is stopped: the host is shutting down", p.Spec.Name)
	}
	if p.unstarted {
		p.unstarted = false
		p.m.log.Debug("starting plugin for a session slot", "name", p.Spec.Name, "slot", p.slot)
		if _, err := p.start(ctx); err != nil {
			return nil, sdk.Errorf(sdk.CodePluginCrashed, "start of plugin %s for session slot %d failed: %w", p.Spec.Name, p.slot, err)
		}
		return p.conn, nil
	}
	if p.reattach != nil {
		return nil, sdk.Errorf(sdk.CodePluginCrashed, "reattached plugin %s is gone; restart it with -debug", p.Spec.Name)
	}
	if p.restarts >= p.m.restartBudget {
		return nil, sdk.Errorf(sdk.CodePluginCrashed, "plugin %s crashed %d times; not restarting it again (restart the host)", p.Spec.Name, p.restarts)
	}
	p.restarts++
	p.m.log.Warn("relaunching crashed plugin", "name", p.Spec.Name, "restart", p.restarts)
	if p.client != nil {
		p.client.Kill()
	}
	if _, err := p.start(ctx); err != nil {
		return nil, sdk.Errorf(sdk.CodePluginCrashed, "relaunch of plugin %s failed: %w", p.Spec.Name, err)
	}
	return p.conn, nil
}

// lock takes p.mu for a caller other than the start behind
// Manager.Start, which holds it until it ends: that start is released
// first (Manager.Release), so the caller does not wait for releaseAfter.
func (p *Plugin) lock() {
	p.m.Release()
	p.mu.Lock()
}

// crashed reports whether the plugin process is gone, with its stderr tail.
func (p *Plugin) crashed() (bool, string) {
	p.lock()
	defer p.mu.Unlock()
	if p.client == nil || !p.client.Exited() {
		return false, ""
	}
	return true, p.tail.String()
}

// stop asks the plugin to stop its work, then ends the process (never a
// reattached one).
//
// Only Start (a plugin it started itself) and Shutdown (after the starts
// behind Start ended) call it: it does not release those starts.
func (p *Plugin) stop(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil {
		return
	}
	if !p.client.Exited() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_ = p.conn.Stop(sctx)
		cancel()
	}
	p.client.Kill()
	p.client = nil
}

// Pid is the plugin's process id, or 0.
func (p *Plugin) Pid() int {
	p.lock()
	defer p.mu.Unlock()
	if p.client == nil {
		return 0
	}
	if rc := p.client.ReattachConfig(); rc != nil {
		return rc.Pid
	}
	return 0
}

// Failure says why the plugin is not in use (Err, or the failed start
// behind Manager.Start), nil when it is; it waits for that start.
func (p *Plugin) Failure() error {
	if p.Err != nil {
		return p.Err
	}
	p.lock()
	defer p.mu.Unlock()
	return p.startErr
}

// Health is a plugin's process status: "running", "crashed" (gone; it is
// relaunched on its next call), "failed" (never started, Err says why) or,
// for a session slot's instance, "idle" (not started yet: it starts on its
// first call), and how many times it was relaunched.
func (p *Plugin) Health() (status string, restarts int) {
	if p.Err != nil {
		return "failed", 0
	}
	dead, _ := p.crashed()
	p.lock()
	defer p.mu.Unlock()
	if p.startErr != nil {
		return "failed", 0
	}
	if p.unstarted {
		return "idle", 0
	}
	if dead {
		return "crashed", p.restarts
	}
	return "running", p.restarts
}
