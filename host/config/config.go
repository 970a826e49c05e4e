// Package config is the host's configuration: flags, environment and the
// config file, resolved against the workspace. Every setting is one row
// of Settings (table.go), from which the flags, the environment lookup,
// the config file's keys and docs/reference.md's table are made; the
// defaults are host/settings'.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/settings"
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
	// zero means settings.DefaultViewport.
	Viewport settings.Viewport
	// MaxTabs is --max-tabs: how many tabs a session holds at most; 0
	// means settings.DefaultMaxTabs.
	MaxTabs int
	// MaxSessions is --max-sessions / MMCP_MAX_SESSIONS: how many wallet
	// sessions run at once; 0 means settings.DefaultMaxSessions.
	MaxSessions int
	// Standby is --standby / MMCP_STANDBY / the config file's "standby":
	// how many sessions the host keeps launched ahead for the default
	// mm_launch; 0 (settings.DefaultStandby) keeps none.
	Standby Count
	// StandbyCheckpoint is --standby-checkpoint / MMCP_STANDBY_CHECKPOINT
	// / the config file's "standbyCheckpoint": the checkpoint one fork of
	// which the host keeps launched ahead; "" none.
	StandbyCheckpoint string
	// SettleTimeout is --settle-timeout / MMCP_SETTLE_TIMEOUT: how long
	// mm_launch waits for the extension's first recognized screen (and for
	// the unlock); 0 means settings.DefaultSettleTimeout.
	SettleTimeout time.Duration
	// MaxRequestBytes is --max-request-bytes / MMCP_MAX_REQUEST_BYTES: the
	// largest MCP request (one stdio line, one HTTP body); a larger one is
	// answered MM_INVALID_INPUT without being held in memory. 0 means
	// DefaultMaxRequestBytes.
	MaxRequestBytes int
	// VisualBaselines is --visual-baselines / MMCP_VISUAL_BASELINES: where
	// mm_visual_check keeps its baselines; default
	// <repo>/settings.DefaultBaselineDir, or <artifacts>/visual-baselines
	// with no workspace.
	VisualBaselines string
	// MaxRecordBytes is --max-record-bytes / MMCP_MAX_RECORD_BYTES: the
	// size cap of one step record; 0 means settings.DefaultMaxRecordBytes.
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
	// environment mode (settings.ModeE2E or settings.ModeProd) each MCP
	// client starts in; default settings.DefaultMode.
	Mode string

	// TrustWorkspacePlugins is --trust-workspace-plugins /
	// MMCP_TRUST_WORKSPACE_PLUGINS=1: run the workspace's plugins
	// (.mmcp/plugins, config paths) without a sha256 pin.
	TrustWorkspacePlugins bool

	// From the config file.
	filePlugins  map[string]settings.PluginEntry
	fileSettings map[string]json.RawMessage
}

// fileConfig is the shape of .mmcp/config.json's plugins; the settings'
// keys (Setting.Key: mode, knowledge.url, ...) are read by name.
type fileConfig struct {
	// Plugins by name: a path (and sha256 pin) adds a plugin binary;
	// settings are handed to the plugin of that name (built-ins too).
	Plugins map[string]struct {
		Path     string          `json:"path"`
		SHA256   string          `json:"sha256"`
		Settings json.RawMessage `json:"settings"`
	} `json:"plugins"`
}

// Resolve fills defaults and resolves paths. It reads the environment
// and the config file.
func (c *Config) Resolve() error {
	for _, s := range Settings {
		if err := s.fromEnv(c, os.Getenv); err != nil {
			return err
		}
	}
	if err := c.resolvePaths(); err != nil {
		return err
	}
	if c.LogLevel == "" {
		c.LogLevel = settings.DefaultLogLevel
	}
	if c.ToolPrefix == "" {
		c.ToolPrefix = settings.DefaultToolPrefix
	}
	if strings.ContainsAny(c.ToolPrefix, " _.") {
		return fmt.Errorf("--tool-prefix %q: use letters and digits only", c.ToolPrefix)
	}
	if c.MaxTabs < 0 || c.MaxTabs == 1 {
		return fmt.Errorf("--max-tabs %d: want at least 2 (the wallet's home page and one more)", c.MaxTabs)
	}
	if c.MaxSessions < 0 {
		return fmt.Errorf("--max-sessions %d: want at least 1", c.MaxSessions)
	}
	if c.Standby.N < 0 {
		return fmt.Errorf("--standby %d: want 0 (none) or more", c.Standby.N)
	}
	if err := sizeSetting(&c.MaxRequestBytes, "MMCP_MAX_REQUEST_BYTES", settings.DefaultMaxRequestBytes); err != nil {
		return err
	}
	if err := sizeSetting(&c.MaxRecordBytes, "MMCP_MAX_RECORD_BYTES", settings.DefaultMaxRecordBytes); err != nil {
		return err
	}
	if err := c.readFile(); err != nil {
		return err
	}
	if c.Mode == "" {
		c.Mode = settings.DefaultMode
	}
	if !slices.Contains(settings.Modes, c.Mode) {
		return fmt.Errorf("environment mode %q (--mode, MMCP_MODE or the config file's \"mode\"): want %s", c.Mode, strings.Join(settings.Modes, " or "))
	}
	return nil
}

// resolvePaths finds the workspace and resolves every path against it.
func (c *Config) resolvePaths() error {
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
		c.ArtifactsDir = settings.DefaultArtifactsDir
		if c.Repo == "" {
			c.ArtifactsDir = StateDir()
		}
	}
	c.ArtifactsDir = c.Path(c.ArtifactsDir)
	if c.VisualBaselines == "" {
		c.VisualBaselines = settings.DefaultBaselineDir
		if c.Repo == "" {
			c.VisualBaselines = filepath.Join(c.ArtifactsDir, "visual-baselines")
		}
	}
	c.VisualBaselines = c.Path(c.VisualBaselines)
	if c.Extension != "" && c.Extension != TestWallet {
		c.Extension = c.Path(c.Extension)
	}
	for i, p := range c.PluginPath {
		c.PluginPath[i] = c.Path(p)
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

// DefaultMaxRequestBytes is the default of --max-request-bytes.
const DefaultMaxRequestBytes = settings.DefaultMaxRequestBytes

// sizeSetting checks a byte-size setting (the flag or env named env) and
// fills def when nothing set it.
func sizeSetting(v *int, env string, def int) error {
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
const TestWallet = settings.TestWallet

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
		c.ConfigFile = filepath.Join(c.Repo, filepath.FromSlash(settings.DefaultConfigFile))
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
	var keys map[string]json.RawMessage
	err = json.Unmarshal(b, &fc)
	if err == nil {
		err = json.Unmarshal(b, &keys)
	}
	if err != nil {
		return fmt.Errorf("config file %s: %w", c.ConfigFile, err)
	}
	for _, s := range Settings {
		if err := s.fromFile(c, keys); err != nil {
			return fmt.Errorf("config file %s: %w", c.ConfigFile, err)
		}
	}
	c.filePlugins = map[string]settings.PluginEntry{}
	c.fileSettings = map[string]json.RawMessage{}
	for name, p := range fc.Plugins {
		if p.Path != "" || p.SHA256 != "" {
			c.filePlugins[name] = settings.PluginEntry{Path: p.Path, SHA256: p.SHA256}
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
func (c *Config) PluginEntries() map[string]settings.PluginEntry { return c.filePlugins }

// PluginSettings are the config file's per-plugin settings, by name.
func (c *Config) PluginSettings() map[string]json.RawMessage { return c.fileSettings }
