package config

import (
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// Setting is one of the host's settings: its flag, the environment
// variable and config file key that may set it instead, its default and
// what it means. The table below is the only place each is written: the
// flags (DeclareFlags), the environment lookup (Resolve), the config
// file's keys and docs/reference.md's table (ReferenceTable) are made
// from it. Precedence: the flag, then the environment, then the config
// file, then the default.
type Setting struct {
	// Flag is the flag's name without dashes; "" for a variable alone.
	Flag string
	// Arg names the flag's value in the docs ("DIR"); "" for a boolean.
	Arg string
	// Env is the environment variable, if any.
	Env string
	// Key is the config file's key, dotted ("knowledge.url"), if any.
	Key string
	// Default is the value when nothing sets it, in words (markdown).
	Default string
	// Usage is one line for the flag's help (plain text).
	Usage string
	// Doc is the reference's meaning (markdown); "" means Usage.
	Doc string
	// Unit is what a number counts, for the error of a bad value.
	Unit string

	// field is the Config field the setting fills (nil: read elsewhere).
	field func(*Config) any
}

// Settings is the host's settings, in the order of the reference table.
var Settings = []Setting{
	{Flag: "repo", Arg: "DIR", Env: "MMCP_REPO", field: func(c *Config) any { return &c.Repo },
		Default: "nearest directory with a `package.json` above the working directory, else none",
		Usage:   "the workspace (the extension checkout); with none, mm_launch loads the embedded test wallet"},
	{Flag: "extension", Arg: "PATH|testwallet", Env: "MMCP_EXTENSION", field: func(c *Config) any { return &c.Extension },
		Default: "the workspace's build; the embedded test wallet with no workspace",
		Usage:   "the extension mm_launch loads when it gets no extensionPath: a directory or '" + settings.TestWallet + "'",
		Doc:     "the extension `mm_launch` loads when it gets no `extensionPath`"},
	{Flag: "artifacts-dir", Arg: "DIR", field: func(c *Config) any { return &c.ArtifactsDir },
		Default: "`<repo>/" + settings.DefaultArtifactsDir + "`, else `$XDG_STATE_HOME/mmcp` or `~/.local/state/mmcp`",
		Usage:   "screenshots, step records and other artifacts",
		Doc:     "screenshots, knowledge store"},
	{Flag: "plugin-path", Arg: "DIRS", Env: "MMCP_PLUGIN_PATH", field: func(c *Config) any { return &c.PluginPath },
		Usage: "extra plugin directories, `:`-separated"},
	{Flag: "config", Arg: "FILE", field: func(c *Config) any { return &c.ConfigFile },
		Default: "`<repo>/" + settings.DefaultConfigFile + "` if present",
		Usage:   "the config file: plugins and their settings, the mode, the shared knowledge store",
		Doc:     "config file (see below)"},
	{Flag: "log-level", Arg: "L", Env: sdk.EnvLogLevel, field: func(c *Config) any { return &c.LogLevel },
		Default: "`" + settings.DefaultLogLevel + "`",
		Usage:   "trace, debug, info, warn, error"},
	{Flag: "log-file", Arg: "FILE", field: func(c *Config) any { return &c.LogFile },
		Default: "stderr",
		Usage:   "write the log to a file"},
	{Flag: "tool-prefix", Arg: "P", field: func(c *Config) any { return &c.ToolPrefix },
		Default: "`" + settings.DefaultToolPrefix + "`",
		Usage:   "tool name prefix (`" + settings.DefaultToolPrefix + "_click`)"},
	{Flag: "chrome", Arg: "PATH", Env: "CHROME_PATH", field: func(c *Config) any { return &c.Chrome },
		Default: "usual install locations",
		Usage:   "Chrome/Chromium binary; never downloaded"},
	{Flag: "headless", field: func(c *Config) any { return &c.Headless },
		Default: "headed when `DISPLAY` is set",
		Usage:   "force headless Chrome",
		Doc:     "force `--headless=new` (with a 1920x1080 screen, so the wallet's popups fit; a headed window is shrunk to its display)"},
	{Flag: "cdp-url", Arg: "URL", field: func(c *Config) any { return &c.CDPURL },
		Usage: "attach to an already running Chrome (its DevTools URL) instead of launching one"},
	{Flag: "viewport", Arg: "WxH", field: func(c *Config) any { return &c.Viewport },
		Default: "`" + settings.DefaultViewport.String() + "`",
		Usage:   "the page viewport of a launched Chrome",
		Doc:     "the page viewport of a launched Chrome (the window is sized so its pages get exactly this; an attached Chrome is left as it is)"},
	{Flag: "max-tabs", Arg: "N", field: func(c *Config) any { return &c.MaxTabs },
		Default: "`" + strconv.Itoa(settings.DefaultMaxTabs) + "`",
		Usage:   "most tabs a session holds (at least 2); opening one more closes the session's oldest non-extension tab first",
		Doc:     "most tabs a session holds (at least 2); opening one more closes the session's oldest non-extension tab first (see \"Tabs\")"},
	{Flag: "max-sessions", Arg: "N", Env: "MMCP_MAX_SESSIONS", field: func(c *Config) any { return &c.MaxSessions },
		Default: "`" + strconv.Itoa(settings.DefaultMaxSessions) + "`",
		Usage:   "most wallet sessions the host runs at once (over HTTP each MCP client launches its own); one more answers MM_SESSION_LIMIT",
		Doc:     "most wallet sessions the host runs at once (over HTTP each MCP client launches its own; see \"Several sessions in one host\"); one more answers `MM_SESSION_LIMIT`"},
	{Flag: "standby", Arg: "N", Env: "MMCP_STANDBY", Key: "standby", field: func(c *Config) any { return &c.Standby },
		Default: "`" + strconv.Itoa(settings.DefaultStandby) + "`: none",
		Usage:   "sessions kept launched ahead for the default mm_launch (no argument but goal, tags, flowTags, shared): such a launch takes one at once and another starts behind it; each holds a session slot and gives it up to a launch that finds none free",
		Doc:     "sessions kept launched ahead for the default `mm_launch` (no argument but `goal`, `tags`, `flowTags`, `shared`): such a launch takes one at once and another starts behind it; each holds one of the `--max-sessions` slots and gives it up to a launch that finds none free; owned by nobody until taken (see \"Standby sessions\")"},
	{Flag: "standby-checkpoint", Arg: "NAME", Env: "MMCP_STANDBY_CHECKPOINT", Key: "standbyCheckpoint", field: func(c *Config) any { return &c.StandbyCheckpoint },
		Default: "none",
		Usage:   "keep one fork of this checkpoint (a name, <sessionId>/<name> or a file) launched ahead: mm_launch {fromCheckpoint: NAME} takes it at once and another starts behind it; like --standby's sessions it holds a session slot and gives it up",
		Doc:     "keep one fork of this checkpoint (a name, `<sessionId>/<name>` or a file) launched ahead: `mm_launch {fromCheckpoint: NAME}` takes it at once and another starts behind it; like `--standby`'s sessions it holds a slot and gives it up; a fork launched ahead of a checkpoint saved again since is dropped (see \"Standby sessions\")"},
	{Flag: "trust-workspace-plugins", Env: "MMCP_TRUST_WORKSPACE_PLUGINS", field: func(c *Config) any { return &c.TrustWorkspacePlugins },
		Default: "off",
		Usage:   "run the workspace's unpinned plugins (.mmcp/plugins, config path entries)",
		Doc:     "run the workspace's unpinned plugins (`.mmcp/plugins`, config `path` entries; see \"Config file\")"},
	{Flag: "max-request-bytes", Arg: "N", Env: "MMCP_MAX_REQUEST_BYTES", Unit: "bytes", field: func(c *Config) any { return &c.MaxRequestBytes },
		Default: strconv.Itoa(settings.DefaultMaxRequestBytes) + " (" + strconv.Itoa(settings.DefaultMaxRequestBytes>>20) + " MiB)",
		Usage:   "largest MCP request (one stdio line, one HTTP body); a larger one is answered MM_INVALID_INPUT",
		Doc:     "largest MCP request (one stdio line, one HTTP body); a larger one is read through without being kept and answered `MM_INVALID_INPUT`"},
	{Flag: "max-record-bytes", Arg: "N", Env: "MMCP_MAX_RECORD_BYTES", Unit: "bytes", field: func(c *Config) any { return &c.MaxRecordBytes },
		Default: strconv.Itoa(settings.DefaultMaxRecordBytes),
		Usage:   "size cap of one step record",
		Doc:     "size cap of one step record: a rejected input, or one over a quarter of the cap or nested deeper than 12, is stored as its size and shape; long error details are cut, then the observation is shortened until the record fits"},
	{Flag: "settle-timeout", Arg: "D", Env: "MMCP_SETTLE_TIMEOUT", field: func(c *Config) any { return &c.SettleTimeout },
		Default: "`" + settings.DefaultSettleTimeout.String() + "`",
		Usage:   "how long mm_launch waits for the extension's first recognized screen, and for the unlock",
		Doc:     "how long `mm_launch` waits for the extension's first recognized screen, and for the unlock"},
	{Flag: "mode", Arg: settings.ModeE2E + "|" + settings.ModeProd, Env: "MMCP_MODE", Key: "mode", field: func(c *Config) any { return &c.Mode },
		Default: "`" + settings.DefaultMode + "`",
		Usage:   "the environment mode each MCP client starts in: e2e (local chain, fixture server, contracts, mocks, default password) or prod (a production-like run with none of those); mm_set_context switches a client's own",
		Doc:     "the environment mode each MCP client starts in: `e2e` has the chain, fixture server, contracts, mocks and default password; `prod` is a production-like run with none of those; `mm_set_context` switches a client's own (see [modes.md](modes.md))"},
	{Flag: "visual-baselines", Arg: "DIR", Env: "MMCP_VISUAL_BASELINES", field: func(c *Config) any { return &c.VisualBaselines },
		Default: "`<repo>/" + settings.DefaultBaselineDir + "`, else `<artifacts>/visual-baselines`",
		Usage:   "where mm_visual_check keeps its baselines",
		Doc:     "where `mm_visual_check` keeps its baselines (see [visual.md](visual.md))"},
	{Flag: "knowledge-url", Arg: "URL", Env: "MMCP_KNOWLEDGE_URL", Key: "knowledge.url", field: func(c *Config) any { return &c.KnowledgeURL },
		Default: "none: the file store alone",
		Usage:   "a PostgreSQL URL (libpq parameters) of a shared knowledge store; the password comes from PGPASSWORD or ~/.pgpass, never the URL; '" + KnowledgeOff + "' turns off one set by env or config",
		Doc:     "a PostgreSQL URL (libpq parameters) of a shared knowledge store; the password comes from `PGPASSWORD` or `~/.pgpass`, never the URL; `" + KnowledgeOff + "` turns off one set by env or config (see [knowledge-postgres.md](knowledge-postgres.md))"},
	{Flag: "knowledge-project", Arg: "NAME", Env: "MMCP_KNOWLEDGE_PROJECT", Key: "knowledge.project", field: func(c *Config) any { return &c.KnowledgeProject },
		Default: "the workspace's git remote URL",
		Usage:   "the repository identity of the shared store's records"},
	{Env: knowledge.EnvRecordAudit,
		Doc: "a file the knowledge store appends a line to for every step record it writes (`ok <tool> <path>`) or refuses for not matching StepRecord v1 (`refused <tool> <session>: <why>`); the e2e suite sets it"},
	{Env: pluginhost.EnvReattach,
		Doc: "plugins to attach to instead of starting (see [Running or debugging one plugin](plugins.md#running-or-debugging-one-plugin-on-its-own))"},
	{Env: sdk.EnvAnvilPath, Doc: "the Anvil binary (chain plugin)"},
	{Env: sdk.EnvNodeModules, Doc: "a `node_modules` with Anvil and contract artifacts, used when the workspace has none"},
}

// DeclareFlags declares a flag for every setting that has one on fs,
// bound to c's field.
func DeclareFlags(fs *flag.FlagSet, c *Config) {
	for _, s := range Settings {
		if s.Flag == "" {
			continue
		}
		usage := s.flagUsage()
		switch p := s.field(c).(type) {
		case *string:
			fs.StringVar(p, s.Flag, "", usage)
		case *bool:
			fs.BoolVar(p, s.Flag, false, usage)
		case *int:
			fs.IntVar(p, s.Flag, 0, usage)
		case *time.Duration:
			fs.DurationVar(p, s.Flag, 0, usage)
		case *[]string:
			fs.Var((*listFlag)(p), s.Flag, usage)
		case flag.Value:
			fs.Var(p, s.Flag, usage)
		default:
			panic(fmt.Sprintf("setting --%s: no flag for %T", s.Flag, p))
		}
	}
}

// flagUsage is the flag's help: the usage, then where else it is set and
// its default.
func (s Setting) flagUsage() string {
	u := s.Usage
	var also []string
	if s.Env != "" {
		also = append(also, "env "+s.envWords())
	}
	if s.Key != "" {
		also = append(also, "config "+s.Key)
	}
	for i, a := range also {
		if i == 0 {
			u += "; "
		} else {
			u += ", "
		}
		u += a
	}
	if s.Default != "" {
		u += " (default " + s.Default + ")"
	}
	return stripTicks(u)
}

// envWords is how the variable is set: NAME, or NAME=1 for a switch.
func (s Setting) envWords() string {
	if s.field != nil {
		if _, ok := s.field(&Config{}).(*bool); ok {
			return s.Env + "=1"
		}
	}
	return s.Env
}

// listFlag is a ':'-separated list (--plugin-path); the last one given
// wins, as with any other flag.
type listFlag []string

func (l *listFlag) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, string(filepath.ListSeparator))
}

func (l *listFlag) Set(v string) error {
	*l = filepath.SplitList(v)
	return nil
}

func (l *listFlag) Get() any { return []string(*l) }

func stripTicks(s string) string { return strings.ReplaceAll(s, "`", "") }

// fromEnv fills the setting's field from its environment variable when
// nothing set it yet (a flag wins).
func (s Setting) fromEnv(c *Config, getenv func(string) string) error {
	if s.Env == "" || s.field == nil {
		return nil
	}
	v := getenv(s.Env)
	if v == "" {
		return nil
	}
	switch p := s.field(c).(type) {
	case *string:
		if *p == "" {
			*p = v
		}
	case *[]string:
		if len(*p) == 0 {
			*p = filepath.SplitList(v)
		}
	case *bool:
		if !*p {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%s %q: want 1 or 0", s.Env, v)
			}
			*p = b
		}
	case *int:
		if *p == 0 {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("%s %q: want a positive number%s", s.Env, v, s.unitWords())
			}
			*p = n
		}
	case *Count:
		if !p.Given {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s %q: want a number, 0 or more%s", s.Env, v, s.unitWords())
			}
			*p = Count{N: n, Given: true}
		}
	case *time.Duration:
		if *p == 0 {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%s %q: want a positive duration such as 30s", s.Env, v)
			}
			*p = d
		}
	default:
		panic(fmt.Sprintf("setting %s: no environment lookup for %T", s.Env, p))
	}
	return nil
}

func (s Setting) unitWords() string {
	if s.Unit == "" {
		return ""
	}
	return " of " + s.Unit
}

// fromFile fills the setting's field from the config file's key when
// neither a flag nor the environment set it. file is the file's top-level
// object.
func (s Setting) fromFile(c *Config, file map[string]json.RawMessage) error {
	if s.Key == "" {
		return nil
	}
	raw, ok := lookupKey(file, s.Key)
	if !ok {
		return nil
	}
	switch p := s.field(c).(type) {
	case *string:
		if *p != "" {
			return nil
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s: want a string", s.Key)
		}
		*p = v
	case *int:
		if *p != 0 {
			return nil
		}
		var v int
		if err := json.Unmarshal(raw, &v); err != nil || v < 0 {
			return fmt.Errorf("%s: want a number, 0 or more%s", s.Key, s.unitWords())
		}
		*p = v
	case *Count:
		if p.Given {
			return nil
		}
		var v int
		if err := json.Unmarshal(raw, &v); err != nil || v < 0 {
			return fmt.Errorf("%s: want a number, 0 or more%s", s.Key, s.unitWords())
		}
		*p = Count{N: v, Given: true}
	default:
		panic(fmt.Sprintf("setting %s: no config file lookup for %T", s.Key, p))
	}
	return nil
}

// lookupKey finds a dotted key ("knowledge.url") in a JSON object.
func lookupKey(obj map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	head, rest, nested := strings.Cut(key, ".")
	raw, ok := obj[head]
	if !ok || !nested {
		return raw, ok
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(raw, &inner) != nil {
		return nil, false
	}
	return lookupKey(inner, rest)
}

// ReferenceTable is docs/reference.md's table of the settings (markdown),
// made from Settings.
func ReferenceTable() string {
	var b strings.Builder
	b.WriteString("| flag | environment | config file | default | meaning |\n|---|---|---|---|---|\n")
	for _, s := range Settings {
		cells := make([]string, 5)
		if s.Flag != "" {
			cells[0] = "`" + strings.TrimSpace("--"+s.Flag+" "+s.Arg) + "`"
		}
		if s.Env != "" {
			cells[1] = "`" + s.envWords() + "`"
		}
		if s.Key != "" {
			cells[2] = "`" + s.Key + "`"
		}
		cells[3] = s.Default
		cells[4] = s.Doc
		if cells[4] == "" {
			cells[4] = s.Usage
		}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", "\\|")
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}
