package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// Version of the build plugin.
const Version = "0.1.0"

// Settings is the plugin's section of the config file. Every field is
// optional.
type Settings struct {
	// Command is the build command line run in the workspace; the default
	// is "yarn <buildType>". It is split on spaces, no shell is involved.
	Command string `json:"command,omitempty"`
	// ExtensionPath is where the build lands, relative to the workspace;
	// default dist/chrome. The build exists when its manifest.json does.
	ExtensionPath string `json:"extensionPath,omitempty"`
	// TimeoutMs bounds one build; default 600000 (10 minutes).
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// WatchCommand is the watch build's command line (mm_build_watch_start),
	// split on spaces like Command; default "yarn start:test".
	WatchCommand string `json:"watchCommand,omitempty"`
	// ReadyPattern is a regular expression: an output line of the watcher
	// that matches it says a (sub-)build finished. The default matches
	// MetaMask's watch output (browserify's "Bundle end:", watchify's
	// "<n> bytes written (<s> seconds)") and webpack's "compiled
	// successfully". Besides it, a gulp "Finished '<task>'" line counts
	// when it leaves no task of the rebuild running. A ready line alone
	// ends nothing: the rebuild is finished once no sub-build it started
	// ("Bundle start: \"X\"" without its "Bundle end: \"X\"") is still
	// running, the output directory holds every file its manifest.json
	// names, and all stayed quiet for SettleMs.
	ReadyPattern string `json:"readyPattern,omitempty"`
	// ErrorPattern is a regular expression: a matching output line says
	// the rebuild failed (the text from it on is the answer). The default
	// matches a JavaScript error's first line ("SyntaxError: ...") at the
	// line start or behind a sub-build's label
	// ("scripts:core:test-live:standardEntryPoints: SyntaxError: ..."),
	// MetaMask's "Bundling failed!" and webpack's "ERROR in" / "compiled
	// with N errors".
	ErrorPattern string `json:"errorPattern,omitempty"`
	// SettleMs is how long the watcher's output and the output directory
	// must stay quiet after a ready or error line before the rebuild counts
	// as finished (several bundles finish one after the other); default 250.
	SettleMs int64 `json:"settleMs,omitempty"`
	// QuietMs applies while no ready line was ever seen: a rebuild finished
	// when the output directory has not changed for QuietMs after a
	// change (and the output is whole, no sub-build running); default 1500.
	QuietMs int64 `json:"quietMs,omitempty"`
	// WaitTimeoutMs bounds mm_build_watch_wait_ready when the call gives no
	// timeoutMs; default 300000 (a first MetaMask watch build takes
	// minutes).
	WaitTimeoutMs int64 `json:"waitTimeoutMs,omitempty"`
}

// defaults are the plugin's settings when the config file says nothing.
var defaults = Settings{
	ExtensionPath: sdk.DefaultExtensionPath,
	TimeoutMs:     600000,
	WatchCommand:  "yarn start:test",
	ReadyPattern:  `Bundle end: |bytes written \(|compiled successfully`,
	ErrorPattern:  `^([\w:./@-]+: )?\s*(\w*Error: |ERROR in |Bundling failed)|compiled with \d+ errors?`,
	SettleMs:      250,
	QuietMs:       1500,
	WaitTimeoutMs: 300000,
}

// Plugin is the build plugin.
type Plugin struct {
	log hclog.Logger

	conf sdk.Configured[Settings]

	mu      sync.Mutex
	cancel  context.CancelFunc // of the running build
	running *exec.Cmd          // the running build's process
	watch   *watch             // the watch build, nil when none runs
}

// New returns the build plugin. log may be nil.
func New(log hclog.Logger) *Plugin {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	p := &Plugin{log: log}
	_ = p.conf.Set("build", sdk.Config{}, (*Settings).check) // the defaults until Configure
	return p
}

// Info implements sdk.Plugin.
func (p *Plugin) Info() sdk.Info { return sdk.Info{Name: "build", Version: Version} }

// Configure implements sdk.Plugin.
func (p *Plugin) Configure(_ context.Context, cfg sdk.Config) error {
	return p.conf.Set("build", cfg, (*Settings).check)
}

// check refuses a pattern that does not compile and fills in the defaults
// of what the config file leaves out (sdk.Configured.Set decodes the
// settings strictly first).
func (s *Settings) check() error {
	for name, pat := range map[string]string{"readyPattern": s.ReadyPattern, "errorPattern": s.ErrorPattern} {
		if _, err := regexp.Compile(pat); err != nil {
			return sdk.Errorf(sdk.CodeInvalidConfig, "build plugin setting %s: %w", name, err).WithDetails(map[string]any{"field": name})
		}
	}
	fill := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	fillMs := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&s.ExtensionPath, defaults.ExtensionPath)
	fill(&s.WatchCommand, defaults.WatchCommand)
	fill(&s.ReadyPattern, defaults.ReadyPattern)
	fill(&s.ErrorPattern, defaults.ErrorPattern)
	fillMs(&s.TimeoutMs, defaults.TimeoutMs)
	fillMs(&s.SettleMs, defaults.SettleMs)
	fillMs(&s.QuietMs, defaults.QuietMs)
	fillMs(&s.WaitTimeoutMs, defaults.WaitTimeoutMs)
	return nil
}

// Stop implements sdk.Plugin: it kills a running build's whole process
// group before it returns, so nothing outlives a plugin that is exiting.
func (p *Plugin) Stop(context.Context) error {
	p.mu.Lock()
	w := p.watch
	p.watch = nil
	proc.KillGroup(p.running)
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Unlock()
	if w != nil {
		w.stop()
	}
	return nil
}

// ExtensionPath implements sdk.Builder.
func (p *Plugin) ExtensionPath(context.Context, sdk.ExtensionPathRequest) (sdk.ExtensionPathResponse, error) {
	return sdk.ExtensionPathResponse{Path: p.extPath()}, nil
}

func (p *Plugin) extPath() string {
	cfg, s := p.conf.Get()
	if filepath.IsAbs(s.ExtensionPath) {
		return s.ExtensionPath
	}
	return filepath.Join(cfg.Workspace, s.ExtensionPath)
}

// IsBuilt implements sdk.Builder: the build exists when its manifest does.
func (p *Plugin) IsBuilt(context.Context, sdk.IsBuiltRequest) (sdk.IsBuiltResponse, error) {
	return sdk.IsBuiltResponse{Built: p.isBuilt()}, nil
}

func (p *Plugin) isBuilt() bool {
	_, err := os.Stat(filepath.Join(p.extPath(), "manifest.json"))
	return err == nil
}

// Build implements sdk.Builder.
func (p *Plugin) Build(ctx context.Context, o sdk.BuildRequest, ev sdk.Events) (sdk.BuildResponse, error) {
	start := time.Now()
	if o.BuildType == "" {
		o.BuildType = "build:test"
	}
	dir := p.extPath()
	res := sdk.BuildResponse{BuildType: o.BuildType, ExtensionPath: dir}
	if p.isBuilt() && !o.Force {
		res.Skipped = true
		ev.Log("info", "build exists at "+dir+"; pass force to rebuild")
		return res, nil
	}
	argv, err := p.command(o.BuildType)
	if err != nil {
		return res, err
	}

	cfg, set := p.conf.Get()
	p.mu.Lock()
	if p.cancel != nil {
		p.mu.Unlock()
		return res, sdk.Errorf(sdk.CodeBuildFailed, "a build is already running")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(set.TimeoutMs)*time.Millisecond)
	p.cancel = cancel
	p.mu.Unlock()
	defer func() {
		cancel()
		p.mu.Lock()
		p.cancel = nil
		p.mu.Unlock()
	}()

	tail := proc.NewTail(40)
	err = p.run(ctx, cfg.Workspace, argv, tail, ev)
	res.DurationMs = time.Since(start).Milliseconds()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return res, sdk.Errorf(sdk.CodeBuildFailed, "build timed out after %d ms", set.TimeoutMs).
			WithDetails(map[string]any{"tail": tail.String()})
	case ctx.Err() != nil:
		return res, sdk.Errorf(sdk.CodeCancelled, "build cancelled")
	case err != nil:
		return res, sdk.Errorf(sdk.CodeBuildFailed, "`%s` failed: %w", strings.Join(argv, " "), err).
			WithDetails(map[string]any{"tail": tail.String()})
	}
	if !p.isBuilt() {
		return res, sdk.Errorf(sdk.CodeBuildFailed, "`%s` succeeded but %s has no manifest.json", strings.Join(argv, " "), dir).
			WithDetails(map[string]any{"tail": tail.String()})
	}
	return res, nil
}

// command resolves the build command and checks its dependencies.
func (p *Plugin) command(buildType string) ([]string, error) {
	_, set := p.conf.Get()
	cmdline := set.Command
	if cmdline == "" {
		cmdline = "yarn " + buildType
	}
	return p.resolve(cmdline)
}

// resolve splits a command line and checks its dependencies: the
// workspace's node_modules and the program on PATH.
func (p *Plugin) resolve(cmdline string) ([]string, error) {
	cfg, _ := p.conf.Get()
	workspace := cfg.Workspace
	argv := strings.Fields(cmdline)
	if len(argv) == 0 {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig, "the build plugin's command is empty")
	}
	if _, err := os.Stat(filepath.Join(workspace, "node_modules")); err != nil && needsModules(workspace) {
		return nil, sdk.Errorf(sdk.CodeDependenciesMissing, "%s has no node_modules: run `yarn install` in the workspace first", workspace)
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, sdk.Errorf(sdk.CodeDependenciesMissing, "%s not found on PATH: install it (e.g. `npm install -g yarn`)", argv[0])
	}
	return argv, nil
}

// needsModules reports whether the workspace needs node_modules: unless
// its package.json declares no dependencies of any kind (a workspace
// whose scripts need only node), it does; so does one without a
// package.json that parses.
func needsModules(workspace string) bool {
	raw, err := readRegular(filepath.Join(workspace, "package.json"), maxManifest)
	if err != nil {
		return true
	}
	var pkg map[string]json.RawMessage
	if json.Unmarshal(raw, &pkg) != nil {
		return true
	}
	for _, k := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		var deps map[string]any
		if v, ok := pkg[k]; ok && (json.Unmarshal(v, &deps) != nil || len(deps) > 0) {
			return true
		}
	}
	return false
}

// run runs argv in its own process group, streaming each output line as a
// log event and as a progress message. Cancelling ctx kills the group.
func (p *Plugin) run(ctx context.Context, dir string, argv []string, tail *proc.Tail, ev sdk.Events) error {
	// A supervised group: yarn's sh and node die with the plugin too.
	cmd := proc.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	p.mu.Lock()
	p.running = cmd
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.running = nil
		p.mu.Unlock()
	}()
	p.log.Info("build started", "cmd", strings.Join(argv, " "), "pid", cmd.Process.Pid)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 0
		eachLine(pr, func(line string) {
			n++
			tail.Add(line)
			p.log.Debug("build output", "line", line)
			ev.Log("info", line)
			ev.Progress(float64(n), 0, line)
		})
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
		proc.KillGroup(cmd) // stray grandchildren
	case <-ctx.Done():
		proc.KillGroup(cmd)
		err = <-waited
	}
	_ = pw.Close()
	<-done
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	return nil
}

// Interface guards.
var (
	_ sdk.Plugin  = (*Plugin)(nil)
	_ sdk.Builder = (*Plugin)(nil)
	_ sdk.Watcher = (*Plugin)(nil)
)
