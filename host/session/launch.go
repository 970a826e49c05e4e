package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/proc"
	"github.com/mmcp-dev/mmcp/testwallet"
)

// deps are the capabilities a launch and a teardown of session s use: its
// slot's typed plugin adapters, nil for a capability no plugin provides
// or that the session's environment mode does not use (prod: the build
// only).
// Every session's wallet state is served under its own name, so one
// session's teardown never stops another's; a session beside slot 0, or
// launched ahead (standby.go), runs its chain on a free port.
func (m *Manager) deps(s *Session) launch.Deps {
	d := launch.Deps{Path: m.cfg.Path, Tool: m.tool, SettleTimeout: m.cfg.SettleTimeout, Log: m.log.Named("launch"),
		FreePort: s.slot > 0 || s.ahead, FixtureOrigin: "mmcp-session://" + s.ID}
	sl := m.plugins.Slot(s.slot)
	if s.mode == launch.ModeProd {
		// A production-like run: the build, and none of e2e's services.
		d.Prod = true
		if sl.Has(sdk.CapBuild) && m.cfg.Repo != "" {
			d.Builder = sl.Builder()
		}
		return d
	}
	if sl.Has(sdk.CapBuild) && m.cfg.Repo != "" {
		d.Builder = sl.Builder()
	}
	if sl.Has(sdk.CapChain) {
		d.Chain = sl.Chain()
	}
	if sl.Has(sdk.CapFixture) {
		d.Fixture = sl.Fixture()
	}
	if sl.Has(sdk.CapContractSeeding) {
		d.Contracts = sl.ContractSeeder()
	}
	if sl.Has(sdk.CapMockServer) {
		d.MockServer = sl.MockServer()
	}
	return d
}

// Launch runs mm_launch: chain, contracts, fixture, mock server, Chrome,
// extension ready, unlock (package launch); with fromCheckpoint, a fork of
// that checkpoint (LaunchFrom). A failure undoes the steps already taken.
// An owner's session with a dead part is replaced; a healthy one is kept
// (MM_SESSION_ALREADY_RUNNING). A default launch takes a standby session
// when the host keeps some (standby.go).
func (m *Manager) Launch(ctx context.Context, in launch.Input, progress func(float64, float64, string)) (map[string]any, error) {
	var from *checkpoint.Saved
	if in.FromCheckpoint != "" {
		var err error
		if from, err = m.Checkpoints().Find(in.FromCheckpoint); err != nil {
			return nil, err
		}
	}
	return m.LaunchFrom(ctx, in, from, progress)
}

// LaunchFrom launches the owner's session as Launch does, from checkpoint
// from when it is not nil (a fork: fork.go), else from the state in says.
func (m *Manager) LaunchFrom(ctx context.Context, in launch.Input, from *checkpoint.Saved, progress func(float64, float64, string)) (map[string]any, error) {
	var pre []launch.Prerequisite
	if old := m.get(ctx); old != nil {
		part := m.Health(ctx, old).down()
		if part == "" {
			return nil, sdk.Errorf(sdk.CodeSessionAlreadyRunning, "session %s is running: call %s first", old.ID, m.tool("cleanup")).
				WithDetails(map[string]any{"sessionId": old.ID})
		}
		m.log.Warn("replacing a session with a dead part", "sessionId", old.ID, "part", part)
		m.teardown(old)
		m.set(ctx, nil)
		pre = append(pre, launch.Prerequisite{Step: "replace", Description: fmt.Sprintf("cleaned up session %s, whose %s was down", old.ID, part)})
	}
	if s := m.takeStandby(ctx, in, m.Mode(ctx), from); s != nil {
		pre = append(pre, standbyNote(s))
		s.CreatedAt = time.Now()
		s.parts.Input = in
		defer m.refill()
		return m.started(ctx, s, in.Shared, pre, true), nil
	}
	slot, err := m.claimSlot(tools.Owner(ctx))
	if err != nil && sdk.AsError(err).Code == sdk.CodeSessionLimit {
		if n, ok := m.giveWay(); ok {
			slot, err = n, nil
		}
	}
	if err != nil {
		return nil, err
	}
	launched := false
	defer func() {
		if !launched {
			m.releaseSlot(slot)
			m.refill()
		}
	}()
	s := &Session{ID: newID(), CreatedAt: time.Now(), slot: slot, mode: m.Mode(ctx)}
	if err := m.launchFrom(ctx, s, in, from, progress); err != nil {
		return nil, err
	}
	launched = true
	return m.started(ctx, s, in.Shared, pre, false), nil
}

// launchInto launches session s with input in: its chain, wallet state,
// Chrome and the rest (package launch), into s.parts.
func (m *Manager) launchInto(ctx context.Context, s *Session, in launch.Input, progress func(float64, float64, string)) error {
	return m.launchFrom(ctx, s, in, nil, progress)
}

// launchFrom is launchInto from checkpoint from (nil: none): a fork gets
// the checkpoint's chain and wallet state at launch, then its mocks,
// contracts and tabs (fork.go).
func (m *Manager) launchFrom(ctx context.Context, s *Session, in launch.Input, from *checkpoint.Saved, progress func(float64, float64, string)) error {
	d := m.deps(s)
	if err := m.defaultExtension(&d); err != nil {
		return err
	}
	if from != nil {
		d.From = m.forkFrom(s, from)
	}
	var snapshot sdk.StateSnapshotter // nil: the built-in MetaMask profile
	if m.plugins.Has(sdk.CapStateSnapshot) {
		snapshot = m.plugins.StateSnapshot()
	}
	d.StartWallet = func(ctx context.Context, w launch.WalletStart) (launch.Wallet, error) {
		b, err := wallet.Launch(ctx, wallet.Options{Options: browser.Options{
			ChromePath: m.cfg.Chrome, Headless: m.cfg.Headless, CDPURL: m.cfg.CDPURL,
			ExtensionPath: w.Extension, ArtifactsDir: m.cfg.ArtifactsDir, SlowMo: w.SlowMo, Proxy: w.Proxy,
			Localhost: w.Localhost, Log: m.log.Named("browser"),
			Viewport: m.cfg.Viewport, MaxTabs: m.cfg.MaxTabs, ScreenshotPath: m.screenshotPath(s.ID),
		}, StateSnapshot: snapshot})
		if err != nil {
			return nil, err
		}
		s.wallet = b
		b.OnActiveChange(func() { s.setRefs(nil) })
		return b, nil
	}
	parts, err := launch.Launch(ctx, d, in, progress)
	if err != nil {
		return err
	}
	s.parts = parts
	if p := m.plugins.Slot(s.slot).ByCapability(sdk.CapChain); p != nil {
		_, s.chainRestarts = p.Health()
	}
	if from != nil {
		if err := m.forked(ctx, s, from); err != nil {
			launch.Teardown(d, parts)
			return err
		}
		s.from = from
	}
	return nil
}

// started makes launched session s the call's owner's (shared as
// mm_launch's shared), starts its records and answers mm_launch: pre are
// the steps taken before the launch's own (a replaced session, a standby
// session taken).
func (m *Manager) started(ctx context.Context, s *Session, shared bool, pre []launch.Prerequisite, standby bool) map[string]any {
	parts := s.parts
	s.shared = shared
	m.set(ctx, s)
	// The build's content hash, for the step records: off the launch's
	// path (a MetaMask build is tens of megabytes); a fork hashed it to
	// compare it with the checkpoint's.
	if s.from == nil || s.BuildID() == "" {
		m.hashBuild(s)
	}
	view, err := m.State(ctx, s)
	if err != nil {
		m.log.Warn("state after launch", "error", err)
	}
	m.rec.sessionStarted(s)
	res := map[string]any{"sessionId": s.ID, "extensionId": s.wallet.ExtensionID(), "context": s.mode, "state": view,
		"prerequisites": append(pre, parts.Prerequisites...),
		"extension":     map[string]string{"path": parts.Extension, "source": parts.ExtensionSource}, "splitMs": parts.Split}
	if standby {
		res["standby"] = true
	}
	if len(parts.Warnings) > 0 {
		res["warnings"] = parts.Warnings
	}
	if s.from != nil {
		res["fromCheckpoint"] = forkView(s.from)
	}
	return res
}

// defaultExtension sets the extension a launch without extensionPath
// loads: --extension, or the embedded test wallet when asked for or when
// there is no workspace; otherwise the build plugin decides.
func (m *Manager) defaultExtension(d *launch.Deps) error {
	switch {
	case m.cfg.Extension == TestWallet || (m.cfg.Extension == "" && m.cfg.Repo == ""):
		dir, err := m.testWalletDir()
		if err != nil {
			return sdk.Errorf(sdk.CodeLaunchFailed, "unpacking the embedded test wallet: %v", err)
		}
		d.Extension, d.ExtensionSource = dir, "the embedded test wallet"
		if m.cfg.Extension == "" {
			d.ExtensionSource += " (no workspace)"
		}
	case m.cfg.Extension != "":
		d.Extension, d.ExtensionSource = m.cfg.Extension, "--extension"
	}
	return nil
}

// screenshotPath keeps session id's screenshots in its directory of the
// knowledge store (<artifacts>/<session>/screenshots); without a store (unit tests), browser's
// default.
func (m *Manager) screenshotPath(id string) func(string) string {
	if m.knowledge == nil {
		return nil
	}
	return func(name string) string { return m.knowledge.ScreenshotPath(id, name, time.Now()) }
}

// TestWalletPrefix starts the name of the directories in os.TempDir that
// hold a host's unpacked test wallet: mmcp-testwallet-<host pid>-<random>.
const TestWalletPrefix = "mmcp-testwallet-"

// testWalletDir unpacks the embedded test wallet once per host, into a
// directory removed when the manager closes (or by the next host when this
// one is killed, proc.RemoveStale).
func (m *Manager) testWalletDir() (string, error) {
	m.walletOnce.Do(func() {
		dir, err := proc.TempDir(TestWalletPrefix)
		if err != nil {
			m.walletErr = err
			return
		}
		if err := testwallet.WriteTo(filepath.Join(dir, "testwallet")); err != nil {
			_ = os.RemoveAll(dir)
			m.walletErr = err
			return
		}
		m.walletDir = filepath.Join(dir, "testwallet")
	})
	return m.walletDir, m.walletErr
}

// teardown undoes what a session started, in reverse order.
func (m *Manager) teardown(s *Session) { launch.Teardown(m.deps(s), s.parts) }

// Plugin is plugin p as the call's session sees it: the session's own
// process of a per-session plugin (its chain), else p.
func (m *Manager) Plugin(ctx context.Context, p *plugins.Plugin) *plugins.Plugin {
	slot := 0
	if s := m.get(ctx); s != nil {
		slot = s.slot
	}
	if sp := m.plugins.Slot(slot).ByName(p.Spec.Name); sp != nil {
		return sp
	}
	return p
}

// Cleanup runs mm_cleanup: it tears down the owner's session (when
// sessionID is given, only if it is that one).
func (m *Manager) Cleanup(ctx context.Context, sessionID string) map[string]any {
	s := m.get(ctx)
	if s == nil || (sessionID != "" && sessionID != s.ID) {
		return map[string]any{"cleanedUp": false}
	}
	m.teardown(s)
	m.set(ctx, nil)
	m.refill()
	return map[string]any{"cleanedUp": true}
}
