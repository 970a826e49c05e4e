package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
)

// workspace makes a directory with a package.json and returns it.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// clearEnv unsets every variable Resolve reads, for the test's duration.
func clearEnv(t *testing.T) {
	for _, st := range Settings {
		if st.Env != "" && st.field != nil {
			t.Setenv(st.Env, "")
			os.Unsetenv(st.Env)
		}
	}
}

func TestResolveDefaultsInWorkspace(t *testing.T) {
	clearEnv(t)
	ws := workspace(t)
	c := Config{Repo: ws}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.ArtifactsDir != filepath.Join(ws, "test-artifacts") || c.LogLevel != "info" || c.ToolPrefix != "mm" ||
		c.MaxRequestBytes != DefaultMaxRequestBytes || c.MaxRecordBytes != knowledge.DefaultMaxRecordBytes {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestResolveFindsWorkspaceAboveWorkingDirectory(t *testing.T) {
	clearEnv(t)
	ws := workspace(t)
	sub := filepath.Join(ws, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	c := Config{}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.Repo != ws {
		t.Fatalf("repo %q, want %q", c.Repo, ws)
	}
	// Relative paths are resolved against the workspace, not the working
	// directory.
	if got := c.Path("dist/chrome"); got != filepath.Join(ws, "dist", "chrome") {
		t.Fatalf("Path = %q", got)
	}
}

func TestResolveNoWorkspaceUsesStateDir(t *testing.T) {
	clearEnv(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Chdir(t.TempDir()) // no package.json above a temp dir
	c := Config{}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.Repo != "" || c.ArtifactsDir != filepath.Join(state, "mmcp") {
		t.Fatalf("repo %q artifacts %q", c.Repo, c.ArtifactsDir)
	}
}

// TestResolveFlagBeatsEnvironment: a value given as a flag (a field set
// before Resolve) wins over the environment; the environment fills what
// the flags left zero.
func TestResolveFlagBeatsEnvironment(t *testing.T) {
	clearEnv(t)
	ws, other := workspace(t), workspace(t)
	t.Setenv("MMCP_REPO", other)
	t.Setenv("MMCP_LOG_LEVEL", "debug")
	t.Setenv("MMCP_MAX_SESSIONS", "7")
	t.Setenv("MMCP_SETTLE_TIMEOUT", "12s")
	t.Setenv("MMCP_EXTENSION", "build/ext")
	t.Setenv("MMCP_PLUGIN_PATH", "p1"+string(os.PathListSeparator)+"/abs/p2")
	t.Setenv("MMCP_TRUST_WORKSPACE_PLUGINS", "1")
	t.Setenv("MMCP_MAX_RECORD_BYTES", "1000")

	c := Config{Repo: ws, LogLevel: "warn", MaxSessions: 2}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.Repo != ws || c.LogLevel != "warn" || c.MaxSessions != 2 {
		t.Fatalf("flags lost: repo %q level %q sessions %d", c.Repo, c.LogLevel, c.MaxSessions)
	}
	if c.SettleTimeout != 12*time.Second || c.Extension != filepath.Join(ws, "build", "ext") || !c.TrustWorkspacePlugins || c.MaxRecordBytes != 1000 {
		t.Fatalf("environment not applied: %+v", c)
	}
	if len(c.PluginPath) != 2 || c.PluginPath[0] != filepath.Join(ws, "p1") || c.PluginPath[1] != "/abs/p2" {
		t.Fatalf("plugin path %v", c.PluginPath)
	}

	c = Config{}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.Repo != other || c.LogLevel != "debug" || c.MaxSessions != 7 {
		t.Fatalf("environment: repo %q level %q sessions %d", c.Repo, c.LogLevel, c.MaxSessions)
	}
}

// TestResolveRefusesBadValues: every bad value is refused with a message
// naming the setting.
func TestResolveRefusesBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, env, val string
		cfg            Config
		want           string
	}{
		{name: "sessions env", env: "MMCP_MAX_SESSIONS", val: "zero", want: "MMCP_MAX_SESSIONS"},
		{name: "sessions env 0", env: "MMCP_MAX_SESSIONS", val: "0", want: "MMCP_MAX_SESSIONS"},
		{name: "settle env", env: "MMCP_SETTLE_TIMEOUT", val: "soon", want: "MMCP_SETTLE_TIMEOUT"},
		{name: "trust env", env: "MMCP_TRUST_WORKSPACE_PLUGINS", val: "maybe", want: "MMCP_TRUST_WORKSPACE_PLUGINS"},
		{name: "request bytes env", env: "MMCP_MAX_REQUEST_BYTES", val: "-5", want: "MMCP_MAX_REQUEST_BYTES"},
		{name: "tool prefix", cfg: Config{ToolPrefix: "m_m"}, want: "--tool-prefix"},
		{name: "max tabs", cfg: Config{MaxTabs: 1}, want: "--max-tabs"},
		{name: "max sessions", cfg: Config{MaxSessions: -1}, want: "--max-sessions"},
		{name: "record bytes", cfg: Config{MaxRecordBytes: -1}, want: "MMCP_MAX_RECORD_BYTES"},
		{name: "repo not a dir", cfg: Config{Repo: "/no/such/dir"}, want: "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			if tc.env != "" {
				t.Setenv(tc.env, tc.val)
			}
			c := tc.cfg
			if c.Repo == "" {
				c.Repo = workspace(t)
			}
			err := c.Resolve()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestConfigFile(t *testing.T) {
	clearEnv(t)
	ws := workspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".mmcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := `{"plugins": {
		"mine": {"path": "tools/mmcp-plugin-mine", "sha256": "abc"},
		"build": {"settings": {"command": "yarn build:test"}}
	}}`
	if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Config{Repo: ws}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if e := c.PluginEntries()["mine"]; e.Path != "tools/mmcp-plugin-mine" || e.SHA256 != "abc" {
		t.Fatalf("entries %+v", c.PluginEntries())
	}
	if _, ok := c.PluginEntries()["build"]; ok {
		t.Fatal("a settings-only entry became a plugin entry")
	}
	if got := string(c.PluginSettings()["build"]); !strings.Contains(got, "yarn build:test") {
		t.Fatalf("settings %q", got)
	}

	// A broken file is an error naming it; an explicit file that is
	// missing is an error; a missing default file is not.
	if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(`{"plugins": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	c = Config{Repo: ws}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Fatalf("broken file: %v", err)
	}
	c = Config{Repo: ws, ConfigFile: "nope.json"}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "config file") {
		t.Fatalf("missing explicit file: %v", err)
	}
	c = Config{Repo: workspace(t)}
	if err := c.Resolve(); err != nil {
		t.Fatalf("missing default file: %v", err)
	}
}

// TestMode: the environment mode is e2e by default; the config file's
// "mode" sets it, MMCP_MODE beats the file and --mode beats both; an
// unknown mode is refused naming the three places.
func TestMode(t *testing.T) {
	clearEnv(t)
	ws := workspace(t)
	c := Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Mode != "e2e" {
		t.Fatalf("default mode %q, %v", c.Mode, err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".mmcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(`{"mode": "prod"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c = Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Mode != "prod" {
		t.Fatalf("file mode %q, %v", c.Mode, err)
	}
	t.Setenv("MMCP_MODE", "e2e")
	c = Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Mode != "e2e" {
		t.Fatalf("MMCP_MODE over the file: %q, %v", c.Mode, err)
	}
	c = Config{Repo: ws, Mode: "prod"}
	if err := c.Resolve(); err != nil || c.Mode != "prod" {
		t.Fatalf("--mode over MMCP_MODE: %q, %v", c.Mode, err)
	}
	t.Setenv("MMCP_MODE", "staging")
	c = Config{Repo: ws}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "MMCP_MODE") || !strings.Contains(err.Error(), "e2e or prod") {
		t.Fatalf("unknown mode: %v", err)
	}
}

// The config file's knowledge.url and knowledge.project set the shared
// store below the environment and the flags; a key of the wrong type is
// refused naming it.
func TestConfigFileKeys(t *testing.T) {
	clearEnv(t)
	ws := workspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".mmcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(doc string) {
		if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"knowledge": {"url": "postgres://file/k", "project": "file-project"}}`)
	c := Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.KnowledgeURL != "postgres://file/k" || c.KnowledgeProject != "file-project" {
		t.Fatalf("from the file: %q %q, %v", c.KnowledgeURL, c.KnowledgeProject, err)
	}
	t.Setenv("MMCP_KNOWLEDGE_URL", "postgres://env/k")
	c = Config{Repo: ws, KnowledgeProject: "flag-project"}
	if err := c.Resolve(); err != nil || c.KnowledgeURL != "postgres://env/k" || c.KnowledgeProject != "flag-project" {
		t.Fatalf("env and flag over the file: %q %q, %v", c.KnowledgeURL, c.KnowledgeProject, err)
	}
	write(`{"mode": 1}`)
	c = Config{Repo: ws}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Fatalf("a number for mode: %v", err)
	}
}

// --standby, MMCP_STANDBY and the config file's "standby" set how many
// sessions the host keeps launched ahead, in that order; a negative or
// non-numeric value is refused naming the setting.
func TestStandby(t *testing.T) {
	clearEnv(t)
	ws := workspace(t)
	c := Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Standby.N != 0 {
		t.Fatalf("default standby %d, %v", c.Standby.N, err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".mmcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(doc string) {
		if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"standby": 2, "standbyCheckpoint": "A"}`)
	c = Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Standby.N != 2 || c.StandbyCheckpoint != "A" {
		t.Fatalf("from the file: %d %q, %v", c.Standby.N, c.StandbyCheckpoint, err)
	}
	t.Setenv("MMCP_STANDBY", "3")
	c = Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Standby.N != 3 {
		t.Fatalf("MMCP_STANDBY over the file: %d, %v", c.Standby.N, err)
	}
	// 0 is a value: MMCP_STANDBY=0 switches off the file's standby.
	t.Setenv("MMCP_STANDBY", "0")
	c = Config{Repo: ws}
	if err := c.Resolve(); err != nil || c.Standby.N != 0 {
		t.Fatalf("MMCP_STANDBY=0 over the file's 2: %d, %v", c.Standby.N, err)
	}
	t.Setenv("MMCP_STANDBY", "-1")
	c = Config{Repo: ws}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "MMCP_STANDBY") {
		t.Fatalf("MMCP_STANDBY=-1: %v", err)
	}
	t.Setenv("MMCP_STANDBY", "3")
	var zc Config
	zfs := flag.NewFlagSet("mmcp", flag.ContinueOnError)
	DeclareFlags(zfs, &zc)
	if err := zfs.Parse([]string{"--standby", "0"}); err != nil {
		t.Fatal(err)
	}
	zc.Repo = ws
	if err := zc.Resolve(); err != nil || zc.Standby.N != 0 {
		t.Fatalf("--standby 0 over MMCP_STANDBY=3 and the file's 2: %d, %v", zc.Standby.N, err)
	}
	var fc Config
	fs := flag.NewFlagSet("mmcp", flag.ContinueOnError)
	DeclareFlags(fs, &fc)
	if err := fs.Parse([]string{"--standby", "1"}); err != nil {
		t.Fatal(err)
	}
	fc.Repo = ws
	if err := fc.Resolve(); err != nil || fc.Standby.N != 1 {
		t.Fatalf("--standby over MMCP_STANDBY: %d, %v", fc.Standby.N, err)
	}
	for _, doc := range []string{`{"standby": -1}`, `{"standby": "two"}`} {
		write(doc)
		os.Unsetenv("MMCP_STANDBY")
		c = Config{Repo: ws}
		if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "standby") {
			t.Fatalf("%s: %v", doc, err)
		}
	}
	write(`{}`)
	c = Config{Repo: ws, Standby: Count{N: -1, Given: true}}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "--standby") {
		t.Fatalf("--standby -1: %v", err)
	}
}
