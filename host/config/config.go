// Package config is the host's configuration: flags, environment and the
// config file, resolved against the workspace.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/visual"
)

// Config is the host's configuration: flags, environment and the config
// file, resolved against the workspace.
type Config struct {
	// Repo is the workspace (the extension checkout): --repo, MMCP_REPO,
	// else the nearest directory with a package.json walking up from the
	// working directory. Every relative path is resolved against it. It
	// may be "" (no workspace): the host still starts, mm_build answers
	// MM_NO_WORKSPACE and mm_launch loads the embedded test wallet.
	Repo string
	// ArtifactsDir is --artifacts-dir; default <repo>/test-artifacts, or
	// StateDir() with no workspace.
	ArtifactsDir string
	// Extension is --extension / MMCP_EXTENSION: the extension mm_launch
	// loads when it gets no extensionPath, a directory or "testwallet"
	// (the embedded test wallet). Default: the workspace's build, or the
	// test wallet with no workspace.
	Extension string
	// PluginPath is --plugin-path / MMCP_PLUGIN_PATH (list separated by ':').
	PluginPath []string
	// ConfigFile is --config; default <repo>/.mmcp/config.json if present.
	ConfigFile string
	// LogLevel is --log-level / MMCP_LOG_LEVEL (trace, debug, info, warn,
	// error); default info.
	LogLevel string
	// LogFile is --log-file: the log goes there instead of stderr.
	LogFile string
	// ToolPrefix is --tool-prefix; default "mm".
	ToolPrefix string
	// Chrome is --chrome / CHROME_PATH.
	Chrome string
	// Headless is --headless (forces headless; otherwise headed when a
	// display is available).
	Headless bool
	// CDPURL is --cdp-url: attach to a running Chrome.
	CDPURL string
	// Viewport is --viewport WxH: the page viewport of a launched Chrome;
	// zero means browser.DefaultViewport.
	Viewport browser.Viewport
	// MaxTabs is --max-tabs: how many tabs a session holds at most; 0
	// means browser.DefaultMaxTabs.
	MaxTabs int
	// MaxSessions is --max-sessions / MMCP_MAX_SESSIONS: how many wallet
	// sessions run at once; 0 means session.DefaultMaxSessions.
	MaxSessions int
	// SettleTimeout is --settle-timeout / MMCP_SETTLE_TIMEOUT: how long
	// mm_launch waits for the extension's first recognized screen (and for
	// the unlock); 0 means launch.DefaultSettleTimeout.
	SettleTimeout time.Duration
	// MaxRequestBytes is --max-request-bytes / MMCP_MAX_REQUEST_BYTES: the
	// largest MCP request (one stdio line, one HTTP body); a larger one is
	// answered MM_INVALID_INPUT without being held in memory. 0 means
	// DefaultMaxRequestBytes.
	MaxRequestBytes int
	// VisualBaselines is --visual-baselines / MMCP_VISUAL_BASELINES: where
	// mm_visual_check keeps its baselines; default
	// <repo>/visual.DefaultBaselineDir, or <artifacts>/visual-baselines
	// with no workspace.
	VisualBaselines string
	// MaxRecordBytes is --max-record-bytes / MMCP_MAX_RECORD_BYTES: the
	// size cap of one step record; 0 means knowledge.DefaultMaxRecordBytes.
	MaxRecordBytes int

	// KnowledgeURL is --knowledge-url / MMCP_KNOWLEDGE_URL / the config
	// file's knowledge.url: a PostgreSQL URL (libpq parameters; the
	// password only from PGPASSWORD or .pgpass) for the shared knowledge
	// store. Empty or KnowledgeOff: the file store alone.
	KnowledgeURL string
	// KnowledgeProject is --knowledge-project / MMCP_KNOWLEDGE_PROJECT /
	// knowledge.project: the repository identity of the shared store's
	// records; default the workspace's git remote URL.
	KnowledgeProject string
	// Mode is --mode / MMCP_MODE / the config file's "mode": the
	// environment mode of spec 001 (launch.ModeE2E or launch.ModeProd)
	// each MCP client starts in; default launch.DefaultMode.
	Mode string

	// TrustWorkspacePlugins is --trust-workspace-plugins /
	// MMCP_TRUST_WORKSPACE_PLUGINS=1: run the workspace's plugins
	// (.mmcp/plugins, config paths) without a sha256 pin.
	TrustWorkspacePlugins bool

	// From the config file.
	filePlugins  map[string]plugins.ConfigEntry
	fileSettings map[string]json.RawMessage
	fileMode     string
}

// fileConfig is the shape of .mmcp/config.json.
type fileConfig struct {
	// Mode is the environment mode (e2e, prod), below --mode and MMCP_MODE.
	Mode string `json:"mode"`
	// Plugins by name: a path (and sha256 pin) adds a plugin binary;
	// settings are handed to the plugin of that name (built-ins too).
	Plugins map[string]struct {
		Path     string          `json:"path"`
		SHA256   string          `json:"sha256"`
		Settings json.RawMessage `json:"settings"`
	} `json:"plugins"`
	// Knowledge configures the shared knowledge store.
	Knowledge struct {
		URL     string `json:"url"`
		Project string `json:"project"`
	} `json:"knowledge"`
}

// Resolve fills defaults and resolves paths. It reads the config file.
func (c *Config) Resolve() error {
	if c.Repo == "" {
		c.Repo = os.Getenv("MMCP_REPO")
	}
	if c.Repo == "" {
		if wd, err := os.Getwd(); err == nil {
			c.Repo = findWorkspace(wd)
		}
	}
	if c.Repo != "" {
		abs, err := filepath.Abs(c.Repo)
		if err != nil {
			return err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("workspace %s is not a directory", abs)
		}
		c.Repo = abs
	}
	if c.ArtifactsDir == "" {
		c.ArtifactsDir = "test-artifacts"
		if c.Repo == "" {
			c.ArtifactsDir = StateDir()
		}
	}
	c.ArtifactsDir = c.Path(c.ArtifactsDir)
	if c.VisualBaselines == "" {
		c.VisualBaselines = os.Getenv("MMCP_VISUAL_BASELINES")
	}
	if c.VisualBaselines == "" {
		c.VisualBaselines = visual.DefaultBaselineDir
		if c.Repo == "" {
			c.VisualBaselines = filepath.Join(c.ArtifactsDir, "visual-baselines")
		}
	}
	c.VisualBaselines = c.Path(c.VisualBaselines)
	if c.Extension == "" {
		c.Extension = os.Getenv("MMCP_EXTENSION")
	}
	if c.Extension != "" && c.Extension != TestWallet {
		c.Extension = c.Path(c.Extension)
	}
	if len(c.PluginPath) == 0 {
		if env := os.Getenv("MMCP_PLUGIN_PATH"); env != "" {
			c.PluginPath = filepath.SplitList(env)
		}
	}
	for i, p := range c.PluginPath {
		c.PluginPath[i] = c.Path(p)
	}
	if c.LogLevel == "" {
		c.LogLevel = os.Getenv("MMCP_LOG_LEVEL")
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.ToolPrefix == "" {
		c.ToolPrefix = "mm"
	}
	if strings.ContainsAny(c.ToolPrefix, " _.") {
		return fmt.Errorf("--tool-prefix %q: use letters and digits only", c.ToolPrefix)
	}
	if c.Chrome == "" {
		c.Chrome = os.Getenv("CHROME_PATH")
	}
	if c.MaxTabs < 0 || c.MaxTabs == 1 {
		return fmt.Errorf("--max-tabs %d: want at least 2 (the wallet's home page and one more)", c.MaxTabs)
	}
	if env := os.Getenv("MMCP_MAX_SESSIONS"); c.MaxSessions == 0 && env != "" {
		n, err := strconv.Atoi(env)
		if err != nil || n < 1 {
			return fmt.Errorf("MMCP_MAX_SESSIONS %q: want a positive number", env)
		}
		c.MaxSessions = n
	}
	if c.MaxSessions < 0 {
		return fmt.Errorf("--max-sessions %d: want at least 1", c.MaxSessions)
	}
	if env := os.Getenv("MMCP_SETTLE_TIMEOUT"); c.SettleTimeout == 0 && env != "" {
		d, err := time.ParseDuration(env)
		if err != nil || d <= 0 {
			return fmt.Errorf("MMCP_SETTLE_TIMEOUT %q: want a positive duration such as 30s", env)
		}
		c.SettleTimeout = d
	}
	if env := os.Getenv("MMCP_TRUST_WORKSPACE_PLUGINS"); env != "" && !c.TrustWorkspacePlugins {
		b, err := strconv.ParseBool(env)
		if err != nil {
			return fmt.Errorf("MMCP_TRUST_WORKSPACE_PLUGINS %q: want 1 or 0", env)
		}
		c.TrustWorkspacePlugins = b
	}
	if c.KnowledgeURL == "" {
		c.KnowledgeURL = os.Getenv("MMCP_KNOWLEDGE_URL")
	}
	if c.KnowledgeProject == "" {
		c.KnowledgeProject = os.Getenv("MMCP_KNOWLEDGE_PROJECT")
	}
	if err := sizeSetting(&c.MaxRequestBytes, "MMCP_MAX_REQUEST_BYTES", DefaultMaxRequestBytes); err != nil {
		return err
	}
	if err := sizeSetting(&c.MaxRecordBytes, "MMCP_MAX_RECORD_BYTES", knowledge.DefaultMaxRecordBytes); err != nil {
		return err
	}
	if c.Mode == "" {
		c.Mode = os.Getenv("MMCP_MODE")
	}
	if err := c.readFile(); err != nil {
		return err
	}
	if c.Mode == "" {
		c.Mode = c.fileMode
	}
	if c.Mode == "" {
		c.Mode = launch.DefaultMode
	}
	if launch.CheckMode(c.Mode) != nil {
		return fmt.Errorf("environment mode %q (--mode, MMCP_MODE or the config file's \"mode\"): want %s", c.Mode, strings.Join(launch.Modes, " or "))
	}
	return nil
}

// KnowledgeOff is the --knowledge-url value that turns off a shared
// knowledge store set by the environment or the config file.
const KnowledgeOff = "off"

// SharedKnowledge is the shared knowledge store's URL, "" when none.
func (c *Config) SharedKnowledge() string {
	if c.KnowledgeURL == KnowledgeOff {
		return ""
	}
	return c.KnowledgeURL
}

// DefaultMaxRequestBytes is the default of --max-request-bytes: room for a
// custom fixture, far from a memory problem.
const DefaultMaxRequestBytes = 4 << 20

// sizeSetting fills a byte-size setting from its environment variable,
// then from def.
func sizeSetting(v *int, env string, def int) error {
	if *v == 0 {
		if s := os.Getenv(env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				return fmt.Errorf("%s %q: want a positive number of bytes", env, s)
			}
			*v = n
		}
	}
	if *v < 0 {
		return fmt.Errorf("%s: want a positive number of bytes, got %d", env, *v)
	}
	if *v == 0 {
		*v = def
	}
	return nil
}

// TestWallet is the --extension value that selects the embedded test
// wallet.
const TestWallet = session.TestWallet

// StateDir is the per-user state directory, used for artifacts and the
// knowledge store when there is no workspace: $XDG_STATE_HOME/mmcp, else
// ~/.local/state/mmcp.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mmcp")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "mmcp-state")
	}
	return filepath.Join(home, ".local", "state", "mmcp")
}

// Path resolves p against the workspace (against the working directory
// when there is none).
func (c *Config) Path(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if c.Repo == "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return filepath.Join(c.Repo, p)
}

func (c *Config) readFile() error {
	explicit := c.ConfigFile != ""
	if !explicit && c.Repo == "" {
		return nil
	}
	if !explicit {
		c.ConfigFile = filepath.Join(c.Repo, ".mmcp", "config.json")
	} else {
		c.ConfigFile = c.Path(c.ConfigFile)
	}
	b, err := os.ReadFile(c.ConfigFile)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	var fc fileConfig
	if err := json.Unmarshal(b, &fc); err != nil {
		return fmt.Errorf("config file %s: %w", c.ConfigFile, err)
	}
	if c.KnowledgeURL == "" {
		c.KnowledgeURL = fc.Knowledge.URL
	}
	if c.KnowledgeProject == "" {
		c.KnowledgeProject = fc.Knowledge.Project
	}
	c.fileMode = fc.Mode
	c.filePlugins = map[string]plugins.ConfigEntry{}
	c.fileSettings = map[string]json.RawMessage{}
	for name, p := range fc.Plugins {
		if p.Path != "" || p.SHA256 != "" {
			c.filePlugins[name] = plugins.ConfigEntry{Path: p.Path, SHA256: p.SHA256}
		}
		if len(p.Settings) > 0 {
			c.fileSettings[name] = p.Settings
		}
	}
	return nil
}

// findWorkspace walks up from dir to the first directory with a package.json.
func findWorkspace(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// PluginEntries are the config file's plugin entries, by name.
func (c *Config) PluginEntries() map[string]plugins.ConfigEntry { return c.filePlugins }

// PluginSettings are the config file's per-plugin settings, by name.
func (c *Config) PluginSettings() map[string]json.RawMessage { return c.fileSettings }

// VisualStore is where mm_visual_check keeps its baselines and, under
// <artifacts>/visual, the last screenshot and diff of each check.
func (c *Config) VisualStore() visual.Store {
	return visual.Store{Dir: c.VisualBaselines, Work: filepath.Join(c.ArtifactsDir, "visual")}
}
