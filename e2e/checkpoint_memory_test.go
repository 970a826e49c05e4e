package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmcp-dev/mmcp/host/checkpoint"
)

// TestCheckpointSaveInMemoryWallet: a wallet that keeps its state in
// memory, as a MetaMask test build does (TestWalletSettings.networkStore:
// nothing in chrome.storage.local; the background's stateHooks answer the
// data without its version; the migrator logs each migration it runs on
// the loaded state), is saved from its service worker: the checkpoint
// holds the state as it is now (the dapp connection made after the
// launch) at the version its migrations reached, and restoring it brings
// the wallet back unlocked with that connection. Before, the save
// answered MM_INTERNAL_ERROR: the wallet keeps no persisted state.
func TestCheckpointSaveInMemoryWallet(t *testing.T) {
	h, _ := walletHost(t)
	launchBehaving(t, h, map[string]any{"networkStore": 80})
	connectTestDapp(t, h)
	var st struct{ State struct{ CurrentURL string } }
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &st)
	u, err := url.Parse(st.State.CurrentURL)
	if err != nil || u.Host == "" {
		t.Fatalf("the dapp tab's URL %q", st.State.CurrentURL)
	}
	origin := u.Scheme + "://" + u.Host

	var saved struct{ Path string }
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"})).Decode(t, &saved)
	b, err := os.ReadFile(filepath.Join(saved.Path, checkpoint.File))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Wallet struct {
			Data struct {
				PermissionController struct {
					Subjects map[string]any `json:"subjects"`
				}
			} `json:"data"`
			Meta map[string]any `json:"meta"`
		} `json:"wallet"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Wallet.Data.PermissionController.Subjects[origin] == nil {
		t.Fatalf("the saved state lacks the connection of %s made after the launch: %v", origin, c.Wallet.Data.PermissionController.Subjects)
	}
	if c.Wallet.Meta["version"] != float64(80) {
		t.Fatalf("saved meta %v, want version 80 (the last migration the wallet ran)", c.Wallet.Meta)
	}

	var r restoreAnswer
	must(t, h.Call("mm_checkpoint_restore", map[string]any{"name": "A"})).Decode(t, &r)
	if !r.Unlocked {
		t.Fatalf("restored wallet locked: %+v", r)
	}
	// The restored wallet loaded the saved state at its version: no
	// migration ran, and a save now keeps that version.
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "B"})).Decode(t, &saved)
	if b, err = os.ReadFile(filepath.Join(saved.Path, checkpoint.File)); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Wallet.Meta["version"] != float64(80) || c.Wallet.Data.PermissionController.Subjects[origin] == nil {
		t.Fatalf("saved again after the restore: meta %v, subjects %v", c.Wallet.Meta, c.Wallet.Data.PermissionController.Subjects)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
