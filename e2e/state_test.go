package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// TestStateFromTheWallet: the test wallet, like a real MetaMask build, has no
// data-address or data-chain-id attributes; the account, chain id, network
// and balance come from the wallet's app state (window.stateHooks, the way
// MetaMask's own e2e tests read it), and a notification popup as the
// active tab shows its screen without making the wallet look locked.
func TestStateFromTheWallet(t *testing.T) {
	h, ws := walletHost(t)
	anvil := testutil.FreePort(t)
	res := launch(t, h, map[string]any{"stateMode": "default", "ports": map[string]any{"anvil": anvil}})
	sid := res["sessionId"].(string)
	network := "Localhost " + strconv.Itoa(anvil) // the fixture names the local network by its port, as MetaMask's "Localhost 8545"

	st := getState(t, h)
	if st.CurrentScreen != "home" || !st.IsUnlocked || st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, account0) ||
		st.ChainID == nil || *st.ChainID != 1337 || st.NetworkName == nil || *st.NetworkName != network {
		t.Fatalf("state %s", jsonOf(st))
	}

	// A step record's state is the wallet's own (mm_get_state overrides the
	// balance from the chain; records do not).
	must(t, h.Call("mm_click", map[string]any{"testId": "eth-overview-receive"}))
	// The click answers before its record is written; the next call on the
	// session runs after it.
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1}))
	recs := records(t, ws, sid)
	last := recs[len(recs)-1].Observation.State
	if last["balance"] != "25 ETH" || last["chainId"] != float64(1337) || !strings.EqualFold(last["accountAddress"].(string), account0) {
		t.Fatalf("recorded state %s", jsonOf(last))
	}

	srv := dappServer(t)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 10000}))
	st = getState(t, h)
	if st.CurrentScreen != "connect" || !st.IsUnlocked || st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, account0) ||
		st.ChainID == nil || *st.ChainID != 1337 {
		t.Fatalf("state with the connect popup active: %s", jsonOf(st))
	}
	must(t, h.Call("mm_close_tab", map[string]any{"role": "notification"}))
}

// TestStateSnapshotPlugin: a plugin declaring the StateSnapshot capability
// (examples/screens-plugin) replaces the built-in MetaMask profile: the
// screens mm_get_state reports are its names, and the wallet fields its
// reading; step records keep them as v1 screens plus a screen label.
func TestStateSnapshotPlugin(t *testing.T) {
	ws := walletWorkspace(t)
	installPlugin(t, filepath.Join(bin, "examples", "mmcp-plugin-screens"), filepath.Join(ws, ".mmcp", "plugins"), "screens")
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless", "--trust-workspace-plugins"}})
	t.Cleanup(func() { h.Call("mm_cleanup", map[string]any{}) })
	anvil := testutil.FreePort(t)
	res := launch(t, h, map[string]any{"stateMode": "default", "ports": map[string]any{"anvil": anvil}})
	sid := res["sessionId"].(string)
	network := "Localhost " + strconv.Itoa(anvil) // the fixture names the local network by its port, as MetaMask's "Localhost 8545"

	st := getState(t, h)
	if st.CurrentScreen != "dashboard" || !st.IsUnlocked || st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, account0) ||
		st.ChainID == nil || *st.ChainID != 1337 || st.NetworkName == nil || *st.NetworkName != network {
		t.Fatalf("state with the plugin: %s", jsonOf(st))
	}
	must(t, h.Call("mm_navigate", map[string]any{"screen": "settings"}))
	if s := getState(t, h); s.CurrentScreen != "preferences" {
		t.Fatalf("settings is %q, want the plugin's preferences", s.CurrentScreen)
	}
	must(t, h.Call("mm_navigate", map[string]any{"screen": "home"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "global-menu-lock"}))
	must(t, h.Call("mm_wait_for", map[string]any{"testId": "unlock-password"}))
	if s := getState(t, h); s.CurrentScreen != "login" || s.IsUnlocked {
		t.Fatalf("locked wallet: %s, want the plugin's login, locked", jsonOf(s))
	}

	var last struct {
		Steps []struct{ Tool, Screen string }
	}
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})).Decode(t, &last)
	if len(last.Steps) != 1 || last.Steps[0].Screen != "login" {
		t.Fatalf("knowledge screen %+v", last)
	}
	recs := records(t, ws, sid)
	if got := recs[len(recs)-1].Observation.State["currentScreen"]; got != "unknown" {
		t.Fatalf("record screen %v: a v1 record names only v1 screens", got)
	}
}
