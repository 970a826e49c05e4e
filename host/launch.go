package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/sdk"
)

// launchInput is mm_launch's input.
type launchInput struct {
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
}

// prerequisite is one step mm_launch took.
type prerequisite struct {
	Step        string `json:"step"`
	Description string `json:"description"`
}

// DefaultPassword unlocks the default fixture's vault.
const DefaultPassword = "correct horse battery staple"

// launch runs mm_launch: chain, contracts, fixture, Chrome, extension ready,
// unlock. A failure undoes the steps already taken.
func (h *Host) launch(ctx context.Context, in launchInput, progress func(float64, float64, string)) (map[string]any, error) {
	if h.sess != nil {
		return nil, sdk.Errorf(sdk.CodeSessionAlreadyRunning, "session %s is running: call %s first", h.sess.id, h.name("cleanup")).
			WithDetails(map[string]any{"sessionId": h.sess.id})
	}
	if in.StateMode == "" {
		in.StateMode = "default"
	}
	if in.StateMode == "custom" && in.FixturePreset == "" && len(in.Fixture) == 0 {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig, "stateMode custom needs fixture or fixturePreset")
	}
	if in.Ports.Anvil == 0 {
		in.Ports.Anvil = 8545
	}
	if in.Ports.FixtureServer == 0 {
		in.Ports.FixtureServer = 12345
	}
	s := &session{id: newSessionID(), createdAt: time.Now(), launch: in}
	var pre []prerequisite
	// Each step's log line carries the milliseconds since the previous one
	// (the split of a launch's time).
	last := time.Now()
	lap := func() int64 {
		now := time.Now()
		ms := now.Sub(last).Milliseconds()
		last = now
		return ms
	}
	step := func(name, desc string) {
		pre = append(pre, prerequisite{Step: name, Description: desc})
		progress(float64(len(pre)), 0, desc)
		h.log.Info("launch", "step", name, "ms", lap(), "detail", desc)
	}
	ok := false
	defer func() {
		if !ok {
			h.teardown(s)
		}
	}()

	ext, err := h.extensionPath(ctx, in, step, progress)
	if err != nil {
		return nil, err
	}

	// The wallet state is resolved before anything starts: an unknown
	// preset or a malformed fixture fails without starting a chain.
	var state sdk.WalletState
	if h.plugins.ByCapability(sdk.CapFixture) != nil {
		err := h.plugins.Use(ctx, sdk.CapFixture, func(c *sdk.Client) error {
			var err error
			state, err = h.walletState(ctx, c.Fixture(), in)
			return err
		})
		if err != nil {
			return nil, launchErr("fixture", err)
		}
	}
	hasVault := stateHasVault(state)
	h.log.Debug("launch", "step", "wallet-state", "ms", lap(), "detail", "resolved the "+in.StateMode+" wallet state")

	if h.plugins.ByCapability(sdk.CapChain) != nil {
		var st sdk.ChainStatus
		err := h.plugins.Use(ctx, sdk.CapChain, func(c *sdk.Client) error {
			var err error
			st, err = c.Chain().Start(ctx, sdk.ChainOptions{Port: in.Ports.Anvil})
			return err
		})
		if err != nil {
			return nil, launchErr("chain", err)
		}
		s.chain = &st
		step("chain", fmt.Sprintf("local chain ready at %s (chain id %d)", st.RPCURL, st.ChainID))
	}

	contracts := map[string]string{}
	if len(in.SeedContracts) > 0 {
		if s.chain == nil {
			return nil, sdk.Errorf(sdk.CodeInvalidConfig, "seedContracts needs a chain: install mmcp-plugin-chain")
		}
		res, err := h.seedAtLaunch(ctx, s, in.SeedContracts)
		if err != nil {
			return nil, launchErr("contracts", err)
		}
		if len(res.Failed) > 0 {
			return nil, sdk.Errorf(sdk.CodeLaunchFailed, "seeding %s failed: %s", res.Failed[0].ContractName, res.Failed[0].Error).
				WithDetails(map[string]any{"step": "contracts", "failed": res.Failed})
		}
		for _, d := range res.Deployed {
			contracts[d.ContractName] = d.ContractAddress
		}
		step("contracts", fmt.Sprintf("deployed %d contracts", len(res.Deployed)))
	}

	if state != nil {
		st, err := h.serveFixture(ctx, s, state, in.Ports.FixtureServer, contracts, step)
		if err != nil {
			return nil, err
		}
		s.fixture = true
		step("fixture", fmt.Sprintf("%s wallet state served at %s", in.StateMode, st.URL))
	} else if in.StateMode != "onboarding" {
		h.log.Warn("no fixture plugin: the wallet starts without a fixture (onboarding)")
	}

	b, err := browser.Launch(ctx, browser.Options{
		ChromePath: h.cfg.Chrome, Headless: h.cfg.Headless, CDPURL: h.cfg.CDPURL,
		ExtensionPath: ext, ArtifactsDir: h.cfg.ArtifactsDir,
		SlowMo: time.Duration(in.SlowMo) * time.Millisecond, Log: h.log.Named("browser"),
		StateSnapshot: h.stateSnapshot(),
	})
	if err != nil {
		return nil, launchErr("browser", err)
	}
	s.browser = b
	b.OnActiveChange(func() { s.refs = nil })
	step("browser", "Chrome started with the extension "+b.ExtensionID())

	st, err := b.WaitForScreen(ctx)
	if err != nil {
		return nil, launchErr("extension", err)
	}
	h.log.Info("launch", "step", "extension", "ms", lap(), "detail", "extension ready on "+st.CurrentScreen)
	if in.StateMode == "default" && hasVault && !st.IsUnlocked {
		if err := b.Unlock(ctx, DefaultPassword); err != nil {
			return nil, launchErr("unlock", err)
		}
		step("unlock", "wallet unlocked with the default password")
	}
	h.sess = s
	ok = true
	view, err := h.state(ctx, s)
	if err != nil {
		h.log.Warn("state after launch", "error", err)
	}
	h.sessionStarted(s, ext)
	h.log.Debug("launch", "step", "ready", "ms", lap(), "detail", "state read, session recorded")
	return map[string]any{"sessionId": s.id, "extensionId": b.ExtensionID(), "state": view, "prerequisites": pre}, nil
}

// seedAtLaunch deploys names on the session's chain, emptying the
// registry first (a new session).
func (h *Host) seedAtLaunch(ctx context.Context, s *session, names []string) (sdk.DeployManyResult, error) {
	var res sdk.DeployManyResult
	err := h.plugins.Use(ctx, sdk.CapContractSeeding, func(c *sdk.Client) error {
		if !s.contracts {
			if err := c.ContractSeeder().Clear(ctx); err != nil {
				return err
			}
			s.contracts = true
		}
		var err error
		res, err = c.ContractSeeder().DeployMany(ctx, s.chain.RPCURL, names, sdk.DeployOptions{})
		return err
	})
	return res, err
}

// serveFixture starts the fixture server. A state that references a
// contract seedContracts did not list (a preset with tokens or NFTs) gets
// it deployed, then the server is started again: the fixture plugin
// answers such a state with MM_INVALID_INPUT and details.contract.
func (h *Host) serveFixture(ctx context.Context, s *session, state sdk.WalletState, port int, contracts map[string]string, step func(string, string)) (sdk.FixtureStatus, error) {
	for {
		var st sdk.FixtureStatus
		err := h.plugins.Use(ctx, sdk.CapFixture, func(c *sdk.Client) error {
			var err error
			st, err = c.Fixture().Start(ctx, state, sdk.FixtureOptions{Port: port, Contracts: contracts})
			return err
		})
		name := missingContract(err)
		if name == "" {
			if err != nil {
				return st, launchErr("fixture", err)
			}
			return st, nil
		}
		if _, done := contracts[name]; done || s.chain == nil {
			return st, launchErr("fixture", err)
		}
		res, err := h.seedAtLaunch(ctx, s, []string{name})
		if err != nil {
			return st, launchErr("contracts", err)
		}
		if len(res.Failed) > 0 || len(res.Deployed) == 0 {
			msg := "nothing deployed"
			if len(res.Failed) > 0 {
				msg = res.Failed[0].Error
			}
			return st, sdk.Errorf(sdk.CodeLaunchFailed, "the wallet state needs contract %s, and deploying it failed: %s", name, msg).
				WithDetails(map[string]any{"step": "contracts", "contract": name})
		}
		contracts[name] = res.Deployed[0].ContractAddress
		step("contracts", fmt.Sprintf("deployed %s at %s for the wallet state", name, res.Deployed[0].ContractAddress))
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

// launchErr keeps a step's domain code (MM_PORT_IN_USE, MM_INVALID_CONFIG
// ...) and turns anything else into MM_LAUNCH_FAILED naming the step.
func launchErr(step string, err error) error {
	var de *sdk.Error
	if errors.As(err, &de) {
		if de.Code == sdk.CodeInternal || de.Code == sdk.CodePluginCrashed || de.Code == sdk.CodeTimeout {
			return sdk.Errorf(sdk.CodeLaunchFailed, "launch failed at %s: %s", step, de.Message).WithDetails(map[string]any{"step": step, "cause": de.Code})
		}
		return de.WithDetails(map[string]any{"step": step})
	}
	return sdk.Errorf(sdk.CodeLaunchFailed, "launch failed at %s: %v", step, err).WithDetails(map[string]any{"step": step})
}

// extensionPath resolves the extension to load, building it when asked.
func (h *Host) extensionPath(ctx context.Context, in launchInput, step func(string, string), progress func(float64, float64, string)) (string, error) {
	ext := in.ExtensionPath
	if ext == "" {
		ext = "dist/chrome"
	}
	ext = h.cfg.path(ext)
	if _, err := os.Stat(filepath.Join(ext, "manifest.json")); err == nil {
		return ext, nil
	}
	autoBuild := in.AutoBuild == nil || *in.AutoBuild
	if !autoBuild || in.ExtensionPath != "" {
		return "", sdk.Errorf(sdk.CodeLaunchFailed, "no extension build at %s (manifest.json missing): run %s or pass extensionPath", ext, h.name("build")).
			WithDetails(map[string]any{"step": "build", "extensionPath": ext})
	}
	res, err := h.build(ctx, sdk.BuildOptions{BuildType: "build:test"}, progress)
	if err != nil {
		return "", launchErr("build", err)
	}
	step("build", "built the extension into "+res.ExtensionPath)
	return res.ExtensionPath, nil
}

// walletState picks the state of the launch's stateMode.
func (h *Host) walletState(ctx context.Context, f sdk.Fixture, in launchInput) (sdk.WalletState, error) {
	opts := sdk.StateOptions{AnvilPort: in.Ports.Anvil}
	switch {
	case in.FixturePreset != "":
		return f.ResolvePreset(ctx, in.FixturePreset, opts)
	case in.StateMode == "custom":
		return wrapFixture(in.Fixture)
	case in.StateMode == "onboarding":
		return f.OnboardingState(ctx, opts)
	default:
		return f.DefaultState(ctx, opts)
	}
}

// wrapFixture wraps a custom fixture the way MetaMask does: an object with
// "data" is a whole fixture, anything else is its data.
func wrapFixture(raw json.RawMessage) (sdk.WalletState, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig, "fixture must be a JSON object: %v", err)
	}
	if _, ok := obj["data"]; ok {
		return raw, nil
	}
	return json.Marshal(map[string]any{"data": obj, "meta": map[string]int{"version": 74}})
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

// teardown undoes what a session started, in reverse order. It never
// fails: each step logs its error and the next one runs.
func (h *Host) teardown(s *session) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.browser != nil {
		if err := s.browser.Close(ctx); err != nil {
			h.log.Warn("closing the browser", "error", err)
		}
	}
	if s.fixture {
		_ = h.plugins.Use(ctx, sdk.CapFixture, func(c *sdk.Client) error { return c.Fixture().Stop(ctx) })
	}
	if s.contracts {
		_ = h.plugins.Use(ctx, sdk.CapContractSeeding, func(c *sdk.Client) error { return c.ContractSeeder().Clear(ctx) })
	}
	if s.chain != nil {
		_ = h.plugins.Use(ctx, sdk.CapChain, func(c *sdk.Client) error { return c.Chain().Stop(ctx) })
	}
}

// cleanup runs mm_cleanup.
func (h *Host) cleanup(sessionID string) map[string]any {
	if h.sess == nil || (sessionID != "" && sessionID != h.sess.id) {
		return map[string]any{"cleanedUp": false}
	}
	h.teardown(h.sess)
	h.sess = nil
	return map[string]any{"cleanedUp": true}
}
