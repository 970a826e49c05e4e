package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/testwallet"
)

// launchDeps are the capabilities a launch and a teardown use: the
// plugins' typed adapters, nil for a capability no plugin provides.
func (h *Host) launchDeps() launch.Deps {
	d := launch.Deps{Path: h.cfg.path, Tool: h.name, SettleTimeout: h.cfg.SettleTimeout, Log: h.log.Named("launch")}
	if h.plugins.Has(sdk.CapBuild) && h.cfg.Repo != "" {
		d.Builder = h.plugins.Builder()
	}
	if h.plugins.Has(sdk.CapChain) {
		d.Chain = h.plugins.Chain()
	}
	if h.plugins.Has(sdk.CapFixture) {
		d.Fixture = h.plugins.Fixture()
	}
	if h.plugins.Has(sdk.CapContractSeeding) {
		d.Contracts = h.plugins.ContractSeeder()
	}
	if h.plugins.Has(sdk.CapMockServer) {
		d.MockServer = h.plugins.MockServer()
	}
	return d
}

// launch runs mm_launch: chain, contracts, fixture, mock server, Chrome, extension
// ready, unlock (package launch). A failure undoes the steps already taken.
func (h *Host) launch(ctx context.Context, in launch.Input, progress func(float64, float64, string)) (map[string]any, error) {
	var replaced *launch.Prerequisite
	if old := h.sess; old != nil {
		// A session with a dead part is torn down and replaced; a healthy
		// one is kept.
		part := h.health(ctx, old).down()
		if part == "" {
			return nil, sdk.Errorf(sdk.CodeSessionAlreadyRunning, "session %s is running: call %s first", old.id, h.name("cleanup")).
				WithDetails(map[string]any{"sessionId": old.id})
		}
		h.log.Warn("replacing a session with a dead part", "sessionId", old.id, "part", part)
		h.teardown(old)
		h.setSession(nil)
		replaced = &launch.Prerequisite{Step: "replace", Description: fmt.Sprintf("cleaned up session %s, whose %s was down", old.id, part)}
	}
	s := &session{id: newSessionID(), createdAt: time.Now()}
	d := h.launchDeps()
	if err := h.defaultExtension(&d); err != nil {
		return nil, err
	}
	var snapshot sdk.StateSnapshotter // nil: the built-in MetaMask profile
	if h.plugins.Has(sdk.CapStateSnapshot) {
		snapshot = h.plugins.StateSnapshot()
	}
	d.StartWallet = func(ctx context.Context, ext string, slowMo time.Duration, proxy *browser.Proxy) (launch.Wallet, error) {
		b, err := browser.Launch(ctx, browser.Options{
			ChromePath: h.cfg.Chrome, Headless: h.cfg.Headless, CDPURL: h.cfg.CDPURL,
			ExtensionPath: ext, ArtifactsDir: h.cfg.ArtifactsDir, SlowMo: slowMo, Proxy: proxy, Log: h.log.Named("browser"),
			Viewport: h.cfg.Viewport, MaxTabs: h.cfg.MaxTabs,
			StateSnapshot: snapshot,
		})
		if err != nil {
			return nil, err
		}
		s.browser = b
		b.OnActiveChange(func() { s.refs = nil })
		return b, nil
	}
	parts, err := launch.Launch(ctx, d, in, progress)
	if err != nil {
		return nil, err
	}
	if replaced != nil {
		parts.Prerequisites = append([]launch.Prerequisite{*replaced}, parts.Prerequisites...)
	}
	s.parts = parts
	if p := h.plugins.ByCapability(sdk.CapChain); p != nil {
		_, s.chainRestarts = p.Health()
	}
	h.setSession(s)
	view, err := h.state(ctx, s)
	if err != nil {
		h.log.Warn("state after launch", "error", err)
	}
	h.sessionStarted(s)
	return map[string]any{"sessionId": s.id, "extensionId": s.browser.ExtensionID(), "state": view, "prerequisites": parts.Prerequisites,
		"extension": map[string]string{"path": parts.Extension, "source": parts.ExtensionSource}}, nil
}

// defaultExtension sets the extension a launch without extensionPath
// loads: --extension, or the embedded test wallet when asked for or when
// there is no workspace; otherwise the build plugin decides.
func (h *Host) defaultExtension(d *launch.Deps) error {
	switch {
	case h.cfg.Extension == TestWallet || (h.cfg.Extension == "" && h.cfg.Repo == ""):
		dir, err := h.testWalletDir()
		if err != nil {
			return sdk.Errorf(sdk.CodeLaunchFailed, "unpacking the embedded test wallet: %v", err)
		}
		d.Extension, d.ExtensionSource = dir, "the embedded test wallet"
		if h.cfg.Extension == "" {
			d.ExtensionSource += " (no workspace)"
		}
	case h.cfg.Extension != "":
		d.Extension, d.ExtensionSource = h.cfg.Extension, "--extension"
	}
	return nil
}

// testWalletDir unpacks the embedded test wallet once per host, into a
// directory removed when the host closes.
func (h *Host) testWalletDir() (string, error) {
	if h.walletDir != "" {
		return h.walletDir, nil
	}
	dir, err := os.MkdirTemp("", "mmcp-testwallet-")
	if err != nil {
		return "", err
	}
	if err := testwallet.WriteTo(filepath.Join(dir, "testwallet")); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	h.walletDir = filepath.Join(dir, "testwallet")
	return h.walletDir, nil
}

// teardown undoes what a session started, in reverse order.
func (h *Host) teardown(s *session) { launch.Teardown(h.launchDeps(), s.parts) }

// cleanup runs mm_cleanup.
func (h *Host) cleanup(sessionID string) map[string]any {
	if h.sess == nil || (sessionID != "" && sessionID != h.sess.id) {
		return map[string]any{"cleanedUp": false}
	}
	h.teardown(h.sess)
	h.setSession(nil)
	return map[string]any{"cleanedUp": true}
}
