// Package launch owns a wallet session's launch and teardown: the chain,
// the contracts, the wallet state, the fixture server, the mock server and
// the browser, in that order, each taken from its capability (sdk.Chain, sdk.Fixture, ...)
// and undone in reverse when a later step fails. Every default belongs to
// the capability that owns it: the launcher passes what the user gave (zero
// values otherwise) and uses what the capability answers.
package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Input is mm_launch's input.
type Input struct {
	AutoBuild     *bool           `json:"autoBuild"`
	StateMode     string          `json:"stateMode"`
	FixturePreset string          `json:"fixturePreset"`
	Fixture       json.RawMessage `json:"fixture"`
	Ports         struct {
		Anvil         int `json:"anvil"`
		FixtureServer int `json:"fixtureServer"`
	} `json:"ports"`
	SlowMo        int      `json:"slowMo"`
	ExtensionPath string   `json:"extensionPath"`
	Goal          string   `json:"goal"`
	FlowTags      []string `json:"flowTags"`
	Tags          []string `json:"tags"`
	SeedContracts []string `json:"seedContracts"`
	// Shared lets other owners name the session (package session).
	Shared bool `json:"shared"`
	// FromCheckpoint names a checkpoint to start from (a fork): package
	// session resolves it into Deps.From.
	FromCheckpoint string `json:"fromCheckpoint"`
}

// From is a saved session a launch starts from (a fork of a checkpoint):
// its chain's state loaded into the session's own chain, its wallet state
// served as the fixture.
type From struct {
	// Name names it in messages.
	Name string
	// ChainID is the chain id its chain ran with; 0 when it had no chain.
	ChainID int64
	// ChainState is its chain's full state (sdk.StartChainRequest.State),
	// nil for none; Block the block it was saved at.
	ChainState []byte
	Block      uint64
	// Wallet is its wallet state for a chain on port.
	Wallet func(port int) sdk.WalletState
	// Accept, when set, checks the extension the launch loads (its
	// directory) against the build it was saved on.
	Accept func(ctx context.Context, extension string) error
}

// Wallet is the browser with the extension loaded, as launch needs it.
type Wallet interface {
	ExtensionID() string
	// WaitForFirstScreen waits until the extension shows a recognized
	// screen (read from the DOM: the launch needs the screen, not the
	// wallet's app state).
	WaitForFirstScreen(ctx context.Context) (observation.State, error)
	Unlock(ctx context.Context, password string) error
	Close(ctx context.Context) error
	// Diagnose reads the screen, URL and console errors and saves a
	// screenshot named name, for a launch that cannot finish.
	Diagnose(ctx context.Context, name string) browser.Diagnosis
}

// DefaultSettleTimeout bounds the wait for the extension to show a
// recognized screen, and the unlock.
const DefaultSettleTimeout = settings.DefaultSettleTimeout

// stepLimits bound the steps that have no limit of their own (a build has
// the build plugin's).
var stepLimits = map[string]time.Duration{
	"chain":     time.Minute,
	"contracts": 2 * time.Minute,
	"fixture":   30 * time.Second,
	"mocks":     30 * time.Second,
	"browser":   time.Minute,
}

// Deps are what a launch uses. A nil capability means no plugin provides it.
type Deps struct {
	Builder   sdk.Builder
	Chain     sdk.ChainLifecycle
	Fixture   sdk.Fixture
	Contracts sdk.ContractSeeder
	// MockServer, when a plugin provides it, answers the browser's
	// external requests: Chrome is launched through it.
	MockServer sdk.MockServer
	// StartWallet starts Chrome as w says.
	StartWallet func(ctx context.Context, w WalletStart) (Wallet, error)
	// Path resolves a workspace-relative path.
	Path func(string) string
	// Tool names a tool with the host's prefix (for hints in errors).
	Tool func(base string) string
	// Extension is the extension to load when the launch gives no
	// extensionPath (the host's --extension, or the embedded test wallet),
	// and ExtensionSource says where it came from; "" leaves it to the
	// build plugin.
	Extension, ExtensionSource string
	// SettleTimeout bounds the extension's first screen and the unlock;
	// 0 means DefaultSettleTimeout.
	SettleTimeout time.Duration
	// FreePort starts the chain on a free port when the launch names
	// none: the host runs other sessions' chains beside it.
	FreePort bool
	// Prod launches in the prod environment mode: the arguments only e2e
	// has are refused (MM_NOT_IN_MODE), and the caller leaves Chain,
	// Fixture, Contracts and MockServer nil.
	Prod bool
	// FixtureOrigin, when set, serves this session's wallet state under
	// that name, beside other sessions' states on the one fixture server,
	// and points this session's Chrome at the state's own port.
	FixtureOrigin string
	// From, when set, is the saved session the launch starts from
	// (mm_launch fromCheckpoint): it replaces the wallet state stateMode
	// would give, and the chain starts with its state.
	From *From
	Log  hclog.Logger
}

// WalletStart is how to start Chrome: the extension in directory
// Extension, SlowMo between actions, through Proxy and with Localhost's
// port mapping when they are not nil.
type WalletStart struct {
	Extension string
	SlowMo    time.Duration
	Proxy     *browser.Proxy
	Localhost *browser.PortMap
}

// Prerequisite is one step mm_launch took.
type Prerequisite struct {
	Step        string `json:"step"`
	Description string `json:"description"`
}

// Parts are what a launch started; Teardown undoes them.
type Parts struct {
	// Input is the launch's input, stateMode filled in.
	Input   Input
	Chain   *sdk.ChainStatus // nil when no chain runs
	Fixture *sdk.FixtureStatus
	// FixtureOrigin is the name the wallet state is served under (see
	// Deps.FixtureOrigin); "" for the default state.
	FixtureOrigin string
	Contracts     bool // the registry holds this session's deployments
	// MockServer is the session's proxy, nil when none runs.
	MockServer *sdk.MockServerStatus
	Wallet     Wallet
	// Extension is the loaded extension's directory; BuildType the build
	// that made it, when mm_launch built it.
	Extension       string
	ExtensionSource string // where Extension came from, for the launch result
	BuildType       string
	// Contracts deployed at launch, by name.
	Deployed      map[string]string
	Prerequisites []Prerequisite
	// Warnings are what the launch could not do and did not fail for (a
	// custom state whose vault the fixture's password does not open).
	Warnings []Warning
	// gate is where the session's Chrome reads its wallet state (gate.go),
	// nil without a fixture plugin.
	gate *gate
	// served is the start that serves the session's state (FixtureServed).
	served sdk.StartFixtureRequest
	// Split is where the launch's time went: each step that ran, in ms
	// (build, chain, contracts, fixture, mocks, browser: Chrome and the
	// extension's service worker up and its home page loaded; extension:
	// its first recognized screen; unlock), as the host's log has them.
	Split map[string]int64
}

// FixtureServed records the start that serves the session's state (the
// launch's, or a restore's: req) and where it serves it (st), and points
// the session's gate, where its Chrome reads the state, there: the
// origin's port, or the server's when it has none. A fixture plugin that
// restarted serves the state at another port. The vault's password is
// kept when the start knows none.
func (p *Parts) FixtureServed(req sdk.StartFixtureRequest, st sdk.FixtureStatus) {
	if st.UnlockPassword == "" && p.Fixture != nil {
		st.UnlockPassword = p.Fixture.UnlockPassword
	}
	req.Port = st.Port
	p.served = req
	p.Fixture = &st
	if p.gate != nil {
		to := st.OriginPort
		if to == 0 {
			to = st.Port
		}
		p.gate.Open(to)
	}
}

// Served is the start that serves the session's state now (see
// FixtureServed), to serve it again where a fixture plugin that died lost
// it; its State is empty when no fixture server runs.
func (p *Parts) Served() sdk.StartFixtureRequest { return p.served }

// UnlockPassword is the password of the served state's vault, as the
// fixture plugin that built it says; "" when it gave none or no fixture
// server runs.
func (p *Parts) UnlockPassword() string {
	if p == nil || p.Fixture == nil {
		return ""
	}
	return p.Fixture.UnlockPassword
}

// Warning is something a launch that answers ok left undone: Code says
// what (WarnWalletLocked), Message why and what to do.
type Warning struct {
	Code    string `json:"code"`
	Step    string `json:"step"`
	Message string `json:"message"`
}

// WarnDefaultPortTaken: another process holds a default port the launch
// was not told to use (Anvil's 8545, the fixture server's 12345); the
// session runs that service on a free port instead.
const WarnDefaultPortTaken = "default_port_taken"

// warnPort notes that service runs on free port to because another
// process holds its default port from; set says how to choose a port.
func (l *launcher) warnPort(step string, from any, to int, service, set string) {
	msg := fmt.Sprintf("another process holds port %v (the default port of %s), so this session's %s listens on port %d instead; to choose the port, set %s", from, service, service, to, set)
	l.p.Warnings = append(l.p.Warnings, Warning{Code: WarnDefaultPortTaken, Step: step, Message: msg})
	if l.d.Log != nil {
		l.d.Log.Warn("launch: default port taken", "step", step, "port", from, "using", to)
	}
}

// WarnWalletLocked: the launched state holds a vault the fixture's
// password did not open (or the fixture gave none); the wallet stays on
// its unlock screen.
const WarnWalletLocked = "wallet_locked"

// Progress reports a launch step as it starts.
type Progress func(progress, total float64, message string)

// Launch runs the launch steps in order. On failure everything already
// started is torn down and the error names the step.
func Launch(ctx context.Context, d Deps, in Input, progress Progress) (p *Parts, err error) {
	if in.StateMode == "" {
		in.StateMode = "default"
	}
	if d.Prod {
		if err := prodRefuses(in, d.Tool); err != nil {
			return nil, err
		}
	}
	if d.From != nil && (in.FixturePreset != "" || len(in.Fixture) > 0 || (in.StateMode != "default" && in.StateMode != "")) {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "fromCheckpoint starts from the checkpoint's wallet state: leave out stateMode, fixturePreset and fixture").
			WithDetails(map[string]any{"field": "fromCheckpoint"})
	}
	if in.StateMode == "custom" && in.FixturePreset == "" && len(in.Fixture) == 0 {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig, "stateMode custom needs fixture or fixturePreset")
	}
	if progress == nil {
		progress = func(float64, float64, string) {}
	}
	l := &launcher{d: d, in: in, progress: progress, p: &Parts{Input: in, Deployed: map[string]string{}, Split: map[string]int64{}}, last: time.Now()}
	if d.Prod {
		l.done("mode", "prod environment mode: no chain, wallet state, contracts or mocks; the extension starts as installed")
	}
	defer func() {
		if err != nil {
			Teardown(d, l.p)
			p = nil
		}
	}()
	// Chrome starts beside the chain, the contracts and the wallet state
	// (browser's step runs in the background from its place on): it needs
	// only the extension and the mock server, and the extension's first
	// request for its state waits at the session's gate until the fixture
	// server is up (gate.go).
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"build", l.extension},
		{"mocks", l.mocks},
		{"browser", nil},
		{"chain", l.chain},
		{"contracts", l.contracts},
		{"fixture", l.fixture},
		{"unlock", l.unlock},
	}
	var bg *background
	defer func() { bg.stop() }() // before the teardown of a failed launch
	for i, s := range steps {
		// Progress goes out as a step starts (never right before the
		// response, where some clients drop it).
		l.step, l.total, l.sub = i, len(steps), 0
		if s.name == "unlock" && bg != nil {
			// The wallet's first screen needs Chrome up.
			if err := bg.join(); err != nil {
				return nil, err
			}
		}
		progress(float64(i), float64(len(steps)), "launch: "+s.name+l.bound(s.name))
		if err := ctx.Err(); err != nil {
			return nil, sdk.Errorf(sdk.CodeCancelled, "launch cancelled before %s", s.name).WithDetails(map[string]any{"step": s.name})
		}
		if s.name == "browser" {
			var err error
			if bg, err = l.beside(ctx, s.name, l.browser); err != nil {
				return nil, err
			}
			continue
		}
		if err := l.run(ctx, s.name, s.run); err != nil {
			return nil, err
		}
	}
	return l.p, nil
}

// bound says how long step may take, for its progress message (a call
// that arrives meanwhile reads it): " (at most 1m0s)", "" when the step
// has no limit of its own (a build has the build plugin's).
func (l *launcher) bound(step string) string {
	d, ok := stepLimits[step]
	if step == "unlock" {
		d, ok = 2*l.settle(), true // the first screen, then the unlock
	}
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (at most %s)", d)
}

// settle is the bound of the wait for the first screen, and of the unlock.
func (l *launcher) settle() time.Duration {
	if l.d.SettleTimeout > 0 {
		return l.d.SettleTimeout
	}
	return DefaultSettleTimeout
}

// launcher carries one launch's state between its steps.
type launcher struct {
	d        Deps
	in       Input
	progress Progress
	p        *Parts
	last     time.Time

	step, total, sub int // the running step, the step count, its sub-progress count
}

// subProgress reports progress inside the running step (a build's output):
// strictly increasing and below the next step's value, as MCP requires.
func (l *launcher) subProgress(_, _ float64, msg string) {
	l.sub++
	l.progress(float64(l.step)+1-1/float64(l.sub+1), float64(l.total), msg)
}

// run runs one step within its limit. A step cut off by the call's
// cancellation is MM_CANCELLED, by its own limit MM_LAUNCH_FAILED.
func (l *launcher) run(ctx context.Context, name string, step func(context.Context) error) error {
	sctx := ctx
	if d, ok := stepLimits[name]; ok {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	err := step(sctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return sdk.Errorf(sdk.CodeCancelled, "launch cancelled during %s", name).WithDetails(map[string]any{"step": name})
	}
	if sctx.Err() != nil && ctx.Err() == nil {
		var de *sdk.Error
		if !errors.As(err, &de) || de.Code != sdk.CodeLaunchFailed {
			return sdk.Errorf(sdk.CodeLaunchFailed, "launch step %s did not finish within %s: %w", name, stepLimits[name], err).
				WithDetails(map[string]any{"step": name})
		}
	}
	return stepErr(name, err)
}

// done records a finished step as a prerequisite and logs it.
func (l *launcher) done(step, desc string) {
	l.p.Prerequisites = append(l.p.Prerequisites, Prerequisite{Step: step, Description: desc})
	l.lap(step, desc)
}

// lap logs step as finished now and adds its time (since the last lap) to
// the split.
func (l *launcher) lap(step, detail string) {
	now := time.Now()
	ms := now.Sub(l.last).Milliseconds()
	l.p.Split[step] += ms
	if l.d.Log != nil {
		l.d.Log.Info("launch", "step", step, "ms", ms, "detail", detail)
	}
	l.last = now
}

// extension resolves the extension to load: extensionPath when given,
// else the build plugin's build (built first when missing and autoBuild),
// else, with no build plugin, the workspace's sdk.DefaultExtensionPath.
func (l *launcher) extension(ctx context.Context) error {
	path, source := l.in.ExtensionPath, "extensionPath"
	if path == "" && l.d.Extension != "" {
		path, source = l.d.Extension, l.d.ExtensionSource
	}
	if path == "" && l.d.Builder == nil {
		path, source = sdk.DefaultExtensionPath, "the workspace's "+sdk.DefaultExtensionPath+" (no build plugin)"
	}
	if path != "" {
		ext := l.d.Path(path)
		if _, err := os.Stat(filepath.Join(ext, "manifest.json")); err != nil {
			hint := ""
			if l.in.ExtensionPath == "" {
				hint = ": pass extensionPath, or install mmcp-plugin-build to build it"
			}
			return sdk.Errorf(sdk.CodeLaunchFailed, "no extension at %s (manifest.json missing)%s", ext, hint).
				WithDetails(map[string]any{"extensionPath": ext})
		}
		l.p.Extension, l.p.ExtensionSource = ext, source
		return l.accept(ctx)
	}
	where, err := l.d.Builder.ExtensionPath(ctx, sdk.ExtensionPathRequest{})
	if err != nil {
		return err
	}
	ext := l.d.Path(where.Path)
	built, err := l.d.Builder.IsBuilt(ctx, sdk.IsBuiltRequest{})
	if err != nil {
		return err
	}
	if built.Built {
		l.p.Extension, l.p.ExtensionSource = ext, "the build plugin's build"
		return l.accept(ctx)
	}
	if l.in.AutoBuild != nil && !*l.in.AutoBuild {
		return sdk.Errorf(sdk.CodeLaunchFailed, "no extension build at %s (manifest.json missing): run %s, pass extensionPath, or launch with autoBuild true", ext, l.d.Tool("build")).
			WithDetails(map[string]any{"extensionPath": ext})
	}
	res, err := l.d.Builder.Build(ctx, sdk.BuildRequest{}, plugins.Events{OnProgress: l.subProgress, Logger: l.d.Log})
	if err != nil {
		return err
	}
	l.p.Extension, l.p.BuildType = l.d.Path(res.ExtensionPath), res.BuildType
	l.p.ExtensionSource = "built by the build plugin for this launch"
	l.done("build", "built the extension into "+l.p.Extension)
	return l.accept(ctx)
}

// accept checks the extension against the build the launch's From was
// saved on.
func (l *launcher) accept(ctx context.Context) error {
	if l.d.From == nil || l.d.From.Accept == nil {
		return nil
	}
	return l.d.From.Accept(ctx, l.p.Extension)
}

// chain starts the local chain on the requested port (0: the plugin's).
func (l *launcher) chain(ctx context.Context) error {
	if l.d.Chain == nil {
		if len(l.in.SeedContracts) > 0 {
			return sdk.Errorf(sdk.CodeInvalidConfig, "seedContracts needs a chain: install mmcp-plugin-chain")
		}
		return nil
	}
	req := sdk.StartChainRequest{ChainOptions: sdk.ChainOptions{Port: l.in.Ports.Anvil, FreePort: l.d.FreePort && l.in.Ports.Anvil == 0}}
	if f := l.d.From; f != nil && f.ChainID != 0 {
		req.ChainID, req.State = f.ChainID, f.ChainState
	}
	res, err := l.d.Chain.StartChain(ctx, req)
	if e := sdk.AsError(err); e != nil && e.Code == sdk.CodePortInUse && e.Details["source"] == "default" {
		// Nobody asked for the default port (8545): another process
		// (a dapp developer's own Anvil) holds it, so this session's
		// chain runs on a free port and the answer says so.
		req.Port, req.FreePort = 0, true
		res, err = l.d.Chain.StartChain(ctx, req)
		if err == nil {
			l.warnPort("chain", e.Details["port"], res.Status.Port, "Anvil", "mm_launch's ports.anvil or the chain plugin's port setting")
		}
	}
	if err != nil {
		return err
	}
	st := res.Status
	l.p.Chain = &st
	if f := l.d.From; f != nil && len(req.State) > 0 {
		if st.BlockNumber != f.Block {
			return sdk.Errorf(sdk.CodeLaunchFailed, "the chain plugin did not load checkpoint %s's chain state (its chain is at block %d, the checkpoint's at %d): use a chain plugin that loads sdk.StartChainRequest.State (mmcp-plugin-chain does)", f.Name, st.BlockNumber, f.Block).
				WithDetails(map[string]any{"step": "chain", "blockNumber": st.BlockNumber, "checkpointBlock": f.Block})
		}
		l.done("chain", fmt.Sprintf("local chain ready at %s (chain id %d) with checkpoint %s's state (block %d)", st.RPCURL, st.ChainID, f.Name, st.BlockNumber))
		return nil
	}
	l.done("chain", fmt.Sprintf("local chain ready at %s (chain id %d)", st.RPCURL, st.ChainID))
	return nil
}

// contracts deploys seedContracts on the session's chain.
func (l *launcher) contracts(ctx context.Context) error {
	if len(l.in.SeedContracts) == 0 {
		return nil
	}
	res, err := l.deploy(ctx, l.in.SeedContracts)
	if err != nil {
		return err
	}
	if len(res.Failed) > 0 {
		return sdk.Errorf(sdk.CodeLaunchFailed, "seeding %s failed: %s", res.Failed[0].ContractName, res.Failed[0].Error).
			WithDetails(map[string]any{"failed": res.Failed})
	}
	l.done("contracts", fmt.Sprintf("deployed %d contracts", len(res.Deployed)))
	return nil
}

// deploy deploys names on the session's chain, emptying the registry
// first (a new session).
func (l *launcher) deploy(ctx context.Context, names []string) (sdk.DeployManyResponse, error) {
	if l.d.Contracts == nil {
		return sdk.DeployManyResponse{}, sdk.Errorf(sdk.CodeCapabilityMissing, "deploying contracts needs mmcp-plugin-contracts").
			WithDetails(map[string]any{"capability": string(sdk.CapContractSeeding), "install": "mmcp-plugin-contracts"})
	}
	if !l.p.Contracts {
		if _, err := l.d.Contracts.Clear(ctx, sdk.ClearRequest{}); err != nil {
			return sdk.DeployManyResponse{}, err
		}
		l.p.Contracts = true
	}
	res, err := l.d.Contracts.DeployMany(ctx, sdk.DeployManyRequest{RPCURL: l.p.Chain.RPCURL, Names: names})
	for _, dep := range res.Deployed {
		l.p.Deployed[dep.ContractName] = dep.ContractAddress
	}
	return res, err
}

// fixture builds the wallet state for the chain that runs (its port and
// chain id) and serves it. A state that references a contract
// seedContracts did not list (a preset with tokens or NFTs) gets it
// deployed, then the server is started again: the fixture plugin answers
// such a state with MM_INVALID_INPUT and details.contract.
func (l *launcher) fixture(ctx context.Context) error {
	if l.d.Fixture == nil {
		if l.in.StateMode != "onboarding" && !l.d.Prod && l.d.Log != nil {
			l.d.Log.Warn("no fixture plugin: the wallet starts without a fixture (onboarding)")
		}
		return nil
	}
	state, err := l.walletState(ctx)
	if err != nil {
		return err
	}
	for {
		req := sdk.StartFixtureRequest{State: state,
			FixtureOptions: sdk.FixtureOptions{Port: l.in.Ports.FixtureServer, Contracts: l.p.Deployed, Origin: l.d.FixtureOrigin}}
		started, err := l.d.Fixture.StartFixture(ctx, req)
		st := started.Status
		name := missingContract(err)
		if name == "" {
			if err != nil {
				return err
			}
			l.p.FixtureOrigin = l.d.FixtureOrigin
			l.p.FixtureServed(req, st)
			if l.in.Ports.FixtureServer == 0 && st.Port != sdk.DefaultFixturePort {
				// Another process holds 12345; this session's Chrome
				// reads its state at its own port all the same.
				l.warnPort("fixture", sdk.DefaultFixturePort, st.Port, "fixture server", "mm_launch's ports.fixtureServer")
			}
			what := l.in.StateMode
			if l.d.From != nil {
				what = l.stateName() + "'s"
			}
			desc := fmt.Sprintf("%s wallet state served at %s", what, st.URL)
			if src := stateSource(state); src != "" {
				desc = fmt.Sprintf("%s wallet state (source: %s) served at %s", what, src, st.URL)
			}
			l.done("fixture", desc)
			return nil
		}
		if _, done := l.p.Deployed[name]; done || l.p.Chain == nil {
			return err
		}
		res, err := l.deploy(ctx, []string{name})
		if err != nil {
			return err
		}
		if len(res.Failed) > 0 || len(res.Deployed) == 0 {
			msg := "nothing deployed"
			if len(res.Failed) > 0 {
				msg = res.Failed[0].Error
			}
			return sdk.Errorf(sdk.CodeLaunchFailed, "the wallet state needs contract %s, and deploying it failed: %s", name, msg).
				WithDetails(map[string]any{"contract": name})
		}
		l.done("contracts", fmt.Sprintf("deployed %s at %s for the wallet state", name, res.Deployed[0].ContractAddress))
	}
}

// walletState picks the state of the launch's stateMode, for the chain
// that runs.
func (l *launcher) walletState(ctx context.Context) (sdk.WalletState, error) {
	var opts sdk.StateOptions
	if c := l.p.Chain; c != nil {
		opts = sdk.StateOptions{AnvilPort: c.Port, ChainID: c.ChainID}
	}
	f := l.d.Fixture
	switch {
	case l.d.From != nil:
		port := 0
		if c := l.p.Chain; c != nil {
			port = c.Port
		}
		return l.d.From.Wallet(port), nil
	case l.in.FixturePreset != "":
		res, err := f.ResolvePreset(ctx, sdk.ResolvePresetRequest{Name: l.in.FixturePreset, StateOptions: opts})
		return res.State, err
	case l.in.StateMode == "custom":
		st, err := sdk.WrapFixture(l.in.Fixture)
		return sdk.LocalChainAt(st, opts.AnvilPort), err
	case l.in.StateMode == "onboarding":
		res, err := f.OnboardingState(ctx, sdk.OnboardingStateRequest{StateOptions: opts})
		return res.State, err
	default:
		res, err := f.DefaultState(ctx, sdk.DefaultStateRequest{StateOptions: opts})
		return res.State, err
	}
}

// proxyBypass is what Chrome reaches directly when it runs through the
// mock server: loopback, so the fixture server, Anvil and local dapps never
// go through the proxy. (Chrome bypasses loopback implicitly; the list
// says so explicitly. "<-loopback>" would do the opposite.)
const proxyBypass = "localhost;127.0.0.1;[::1]"

// mocks starts the session's mock server, when a plugin provides one.
func (l *launcher) mocks(ctx context.Context) error {
	if l.d.MockServer == nil {
		return nil
	}
	res, err := l.d.MockServer.StartMockServer(ctx, sdk.StartMockServerRequest{})
	if err != nil {
		return err
	}
	st := res.Status
	l.p.MockServer = &st
	l.done("mocks", fmt.Sprintf("mock server at %s answers the browser's external requests", st.Address))
	return nil
}

// browser starts Chrome with the extension, through the mock server when
// one runs, with the extension's fixture URL mapped to the session's gate
// when a fixture plugin serves its state (the gate opens once the fixture
// step is done).
func (l *launcher) browser(ctx context.Context) (Wallet, error) {
	var proxy *browser.Proxy
	if m := l.p.MockServer; m != nil {
		proxy = &browser.Proxy{Server: "http://" + m.Address, Bypass: proxyBypass, SPKI: m.SPKIHash}
	}
	ws := WalletStart{Extension: l.p.Extension, SlowMo: time.Duration(l.in.SlowMo) * time.Millisecond, Proxy: proxy}
	if l.d.Prod {
		// No wallet state in prod: the extension's fixed fixture URL
		// resolves to nothing, so another session's (or anyone's) server
		// on that port never hands this wallet its state.
		ws.Localhost = &browser.PortMap{From: sdk.DefaultFixturePort}
	}
	if g := l.p.gate; g != nil {
		// The extension fetches its state from the fixed fixture URL
		// without an Origin header: this session's Chrome reaches its own
		// state there, through its gate.
		ws.Localhost = &browser.PortMap{From: sdk.DefaultFixturePort, To: g.Port()}
	}
	return l.d.StartWallet(ctx, ws)
}

// background is a launch step running beside the next ones (browser):
// join waits for it and records it as done; stop cancels it first.
type background struct {
	l      *launcher
	name   string
	cancel context.CancelFunc
	done   chan struct{}
	joined bool

	wallet Wallet
	err    error
	ms     int64
}

// beside starts step name (the browser) in the background, within its
// limit. A launch with a fixture plugin opens the session's gate first.
func (l *launcher) beside(ctx context.Context, name string, step func(context.Context) (Wallet, error)) (*background, error) {
	if l.d.Fixture != nil && !l.d.Prod {
		g, err := openGate()
		if err != nil {
			return nil, sdk.Errorf(sdk.CodeLaunchFailed, "listening for the wallet state's requests: %w", err).WithDetails(map[string]any{"step": name})
		}
		l.p.gate = g
	}
	bctx, cancel := context.WithCancel(ctx)
	b := &background{l: l, name: name, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		start := time.Now()
		b.err = l.run(bctx, name, func(ctx context.Context) error {
			w, err := step(ctx)
			b.wallet = w
			return err
		})
		b.ms = time.Since(start).Milliseconds()
	}()
	return b, nil
}

// join waits for the step and records it: its Wallet into the parts (so a
// teardown closes it), its time and prerequisite when it succeeded. The
// time of the steps after it counts from here.
func (b *background) join() error {
	if b == nil || b.joined {
		return nil
	}
	<-b.done
	b.joined = true
	b.cancel()
	l := b.l
	if b.wallet != nil {
		l.p.Wallet = b.wallet
	}
	if b.err != nil {
		return b.err
	}
	l.p.Split[b.name] += b.ms
	desc := "Chrome started with the extension " + b.wallet.ExtensionID() + ", beside the chain and the wallet state"
	l.p.Prerequisites = append(l.p.Prerequisites, Prerequisite{Step: b.name, Description: desc})
	if l.d.Log != nil {
		l.d.Log.Info("launch", "step", b.name, "ms", b.ms, "detail", desc)
	}
	l.last = time.Now()
	return nil
}

// stop cancels the step and waits for it (a failed launch tears down what
// it started).
func (b *background) stop() {
	if b == nil || b.joined {
		return
	}
	b.cancel()
	_ = b.join()
}

// unlock waits (within SettleTimeout) for the extension's first
// recognized screen and unlocks a locked wallet whose state holds a vault
// (default, a preset or a custom fixture) with the password the fixture
// plugin gave for it (FixtureStatus.UnlockPassword). A
// wallet that never settles, or shows its error page, fails the launch
// with a diagnosis: last screen and URL, console errors of the extension,
// a screenshot. The default state's vault not opening fails the launch
// too; a preset's or custom fixture's (a vault made with another
// password) leaves the wallet locked and the launch answers ok with a
// WarnWalletLocked warning.
func (l *launcher) unlock(ctx context.Context) error {
	settle := l.settle()
	wctx, cancel := context.WithTimeout(ctx, settle)
	st, err := l.p.Wallet.WaitForFirstScreen(wctx)
	cancel()
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return l.failed(ctx, "extension", fmt.Sprintf("the wallet did not reach a recognized screen within %s", settle))
	case st.CurrentScreen == "error":
		return l.failed(ctx, "extension", "the wallet shows its error page")
	}
	l.lap("extension", "extension ready on "+st.CurrentScreen)
	if l.in.StateMode == "onboarding" || !stateHasVault(l.p.Served().State) || st.IsUnlocked {
		return nil
	}
	if password := l.p.UnlockPassword(); password == "" {
		err = sdk.Errorf(sdk.CodeInvalidConfig, "the fixture plugin gave no password for its vault")
	} else {
		uctx, cancel := context.WithTimeout(ctx, settle)
		defer cancel()
		err = l.p.Wallet.Unlock(uctx, password)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		why := sdk.AsError(err).Message
		if l.in.StateMode == "default" && l.in.FixturePreset == "" && l.d.From == nil {
			return l.failed(ctx, "unlock", fmt.Sprintf("unlocking the wallet failed: %s", why))
		}
		l.p.Warnings = append(l.p.Warnings, Warning{Code: WarnWalletLocked, Step: "unlock", Message: fmt.Sprintf(
			"the wallet is locked: the %s state's vault did not open with the fixture plugin's password (%s). "+
				"Unlock it with its own password (%s into the unlock field, then %s), or launch a state whose vault uses the fixture's password",
			l.stateName(), why, l.d.Tool("type"), l.d.Tool("click"))})
		if l.d.Log != nil {
			l.d.Log.Warn("launch: the wallet stays locked", "step", "unlock", "state", l.stateName(), "reason", why)
		}
		return nil
	}
	l.done("unlock", "wallet unlocked with the fixture plugin's password")
	return nil
}

// stateName names the launched wallet state for messages.
func (l *launcher) stateName() string {
	if l.d.From != nil {
		return fmt.Sprintf("checkpoint %q", l.d.From.Name)
	}
	if l.in.FixturePreset != "" {
		return fmt.Sprintf("preset %q", l.in.FixturePreset)
	}
	return l.in.StateMode
}

// failed is MM_LAUNCH_FAILED at step with the browser's diagnosis.
func (l *launcher) failed(ctx context.Context, step, what string) error {
	d := l.p.Wallet.Diagnose(ctx, "launch-failed-"+time.Now().UTC().Format("20060102-150405"))
	msg := fmt.Sprintf("%s (last screen %q at %s; %d console errors of the extension in details.consoleErrors", what, d.LastScreen, d.LastURL, len(d.ConsoleErrors))
	if d.Screenshot != "" {
		msg += "; screenshot " + d.Screenshot
	}
	msg += "): check the build and the wallet state, then call " + l.d.Tool("launch") + " again"
	return sdk.Errorf(sdk.CodeLaunchFailed, "%s", msg).WithDetails(map[string]any{
		"step": step, "lastScreen": d.LastScreen, "lastUrl": d.LastURL, "consoleErrors": d.ConsoleErrors, "screenshot": d.Screenshot,
	})
}

// Teardown undoes what a launch started, in reverse order. It never fails:
// each step logs its error and the next one runs.
func Teardown(d Deps, p *Parts) {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	warn := func(what string, err error) {
		if err != nil && d.Log != nil {
			d.Log.Warn("teardown: "+what, "error", err)
		}
	}
	if p.Wallet != nil {
		warn("closing the browser", p.Wallet.Close(ctx))
		p.Wallet = nil
	}
	if p.gate != nil {
		p.gate.Close()
		p.gate = nil
	}
	if p.MockServer != nil && d.MockServer != nil {
		_, err := d.MockServer.StopMockServer(ctx, sdk.StopMockServerRequest{})
		warn("stopping the mock server", err)
		p.MockServer = nil
	}
	if p.Fixture != nil && d.Fixture != nil {
		if p.FixtureOrigin != "" {
			_, err := d.Fixture.Forget(ctx, sdk.ForgetRequest{Origin: p.FixtureOrigin})
			warn("dropping the session's wallet state", err)
		} else {
			_, err := d.Fixture.StopFixture(ctx, sdk.StopFixtureRequest{})
			warn("stopping the fixture server", err)
		}
		p.Fixture = nil
	}
	if p.Contracts && d.Contracts != nil {
		_, err := d.Contracts.Clear(ctx, sdk.ClearRequest{})
		warn("clearing the contracts registry", err)
		p.Contracts = false
	}
	if p.Chain != nil && d.Chain != nil {
		_, err := d.Chain.StopChain(ctx, sdk.StopChainRequest{})
		warn("stopping the chain", err)
		p.Chain = nil
	}
}

// missingContract is the contract named by the fixture plugin's
// undeployed-contract error, or "".
func missingContract(err error) string {
	var de *sdk.Error
	if !errors.As(err, &de) || de.Code != sdk.CodeInvalidInput {
		return ""
	}
	name, _ := de.Details["contract"].(string)
	return name
}

// stepErr keeps a step's domain code (MM_PORT_IN_USE, MM_INVALID_CONFIG
// ...) and turns anything else into MM_LAUNCH_FAILED naming the step.
func stepErr(step string, err error) error {
	var de *sdk.Error
	if errors.As(err, &de) {
		if _, named := de.Details["step"]; named {
			return de
		}
		if de.Code == sdk.CodeInternal || de.Code == sdk.CodePluginCrashed || de.Code == sdk.CodeTimeout {
			return sdk.Errorf(sdk.CodeLaunchFailed, "launch failed at %s: %s", step, de.Message).WithDetails(map[string]any{"step": step, "cause": de.Code})
		}
		return de.WithDetails(map[string]any{"step": step})
	}
	return sdk.Errorf(sdk.CodeLaunchFailed, "launch failed at %s: %w", step, err).WithDetails(map[string]any{"step": step})
}

// stateSource is the source a fixture plugin noted in the state's
// meta.mmcpSource ("builtin", "workspace <builder>"), or "".
func stateSource(state sdk.WalletState) string {
	var f struct {
		Meta struct {
			Source string `json:"mmcpSource"`
		} `json:"meta"`
	}
	_ = json.Unmarshal(state, &f)
	return f.Meta.Source
}

// stateHasVault reports whether a wallet state holds an encrypted vault.
func stateHasVault(state sdk.WalletState) bool {
	var f struct {
		Data struct {
			KeyringController struct {
				Vault any `json:"vault"`
			} `json:"KeyringController"`
		} `json:"data"`
	}
	_ = json.Unmarshal(state, &f)
	v, ok := f.Data.KeyringController.Vault.(string)
	return ok && v != ""
}
