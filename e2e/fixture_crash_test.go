package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestCheckpointRestoreAfterFixtureCrash: the fixture plugin dies
// mid-session (the session shows its fixture down);
// mm_checkpoint_restore serves the checkpoint's wallet state from the
// restarted plugin, wherever it serves it now, and the wallet comes back
// with that state (the dapp it connected after the checkpoint is not
// connected: its request opens the wallet's popup again), and its fixture
// is up again.
func TestCheckpointRestoreAfterFixtureCrash(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	dapp := dappServer(t)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": dapp.URL}))
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"}))
	connectDapp(t, h)

	killFixturePlugin(t, h)

	var r restoreAnswer
	must(t, h.Call("mm_checkpoint_restore", map[string]any{"name": "A"})).Decode(t, &r)
	if !r.Unlocked || !strings.HasPrefix(r.ActiveURL, dapp.URL) {
		t.Fatalf("restore answered %+v", r)
	}
	// Not connected at A: the dapp's request asks the wallet again.
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	if env := h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 5000}); !env.OK {
		t.Fatalf("after the restore the dapp is still connected (no popup: %+v, account %q): the wallet kept its state, not the checkpoint's",
			env.Error, testIDText(t, h, "account"))
	}
	var v healthView
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &v)
	if v.Health.Fixture.Status != "up" {
		t.Fatalf("after the restore the fixture is %+v", v.Health.Fixture)
	}
}

// killFixturePlugin kills the host's fixture plugin and waits until the
// session shows its fixture down.
func killFixturePlugin(t *testing.T, h *Host) {
	t.Helper()
	killAll(t, "fixture plugin", childrenOf(h.Cmd.Process.Pid, "mmcp-plugin-fixture"))
	if !eventually(5*time.Second, func() bool {
		var v healthView
		h.Call("mm_get_state", map[string]any{}).Decode(t, &v)
		return v.Health.Fixture.Status == "down"
	}) {
		t.Fatal("the killed fixture plugin is not reported down")
	}
}

// TestReloadAfterFixtureCrash: a wallet that keeps its state in memory and
// reads it from the fixture at each start (a MetaMask test build,
// TestWalletSettings.networkStore) is reloaded after the fixture plugin
// died: the reload serves the session's state again from the restarted
// plugin, so the wallet comes back onboarded and unlocked on its home
// screen rather than empty, and the fixture is up again.
func TestReloadAfterFixtureCrash(t *testing.T) {
	h, _ := walletHost(t)
	launchBehaving(t, h, map[string]any{"networkStore": true})
	killFixturePlugin(t, h)

	env := h.Call("mm_reload_extension", map[string]any{})
	var v healthView
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &v)
	if !env.OK || v.State.CurrentScreen != "home" || !v.State.IsUnlocked {
		t.Fatalf("after the reload the wallet is on %q (unlocked %v); the reload answered %s %+v", v.State.CurrentScreen, v.State.IsUnlocked, env.Result, env.Error)
	}
	if v.Health.Fixture.Status != "up" {
		t.Fatalf("after the reload the fixture is %+v", v.Health.Fixture)
	}
}
