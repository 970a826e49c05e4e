package testwallet_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/testwallet"
)

func TestWriteToUnpacksALoadableManifest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new", "ext")
	if err := testwallet.WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ManifestVersion int             `json:"manifest_version"`
		Key             json.RawMessage `json:"key"`
		Background      struct {
			ServiceWorker string `json:"service_worker"`
		} `json:"background"`
		Permissions     []string `json:"permissions"`
		HostPermissions []string `json:"host_permissions"`
		ContentScripts  []struct {
			Matches []string `json:"matches"`
			JS      []string `json:"js"`
			World   string   `json:"world"`
		} `json:"content_scripts"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if m.ManifestVersion != 3 || m.Key != nil || m.Background.ServiceWorker != "scripts/app-init.js" {
		t.Errorf("manifest: version %d, key %s, worker %q; want MV3, no key, scripts/app-init.js",
			m.ManifestVersion, m.Key, m.Background.ServiceWorker)
	}
	for _, want := range []string{"storage", "clipboardRead", "clipboardWrite"} {
		if !strings.Contains(strings.Join(m.Permissions, " "), want) {
			t.Errorf("permissions %v lack %s", m.Permissions, want)
		}
	}
	if strings.Join(m.HostPermissions, " ") != "http://localhost/* http://127.0.0.1/*" {
		t.Errorf("host_permissions = %v", m.HostPermissions)
	}
	refs := []string{m.Background.ServiceWorker, "home.html", "notification.html"}
	mainWorld := false
	for _, cs := range m.ContentScripts {
		refs = append(refs, cs.JS...)
		mainWorld = mainWorld || cs.World == "MAIN"
	}
	if !mainWorld {
		t.Error("no MAIN-world content script: window.ethereum would not reach the page")
	}
	for _, ref := range refs {
		if _, err := os.Stat(filepath.Join(dir, ref)); err != nil {
			t.Errorf("manifest references %s: %v", ref, err)
		}
	}
	// Every file of FS is written, byte for byte.
	err = fs.WalkDir(testwallet.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(testwallet.FS(), path)
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s not written faithfully (%v)", path, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(testwallet.FS(), "embed.go"); err == nil {
		t.Error("the Go source leaked into the extension files")
	}
}

func TestNoFixtureOpensOnboardingWelcome(t *testing.T) {
	serveFixture(t, nil) // 404: the wallet must start empty
	w := startWallet(t)
	p := w.open(t, "home.html")
	waitRoute(t, p, "home.html#onboarding/welcome")
	importBtn := el(t, p, "onboarding-import-wallet")
	if disabled, _ := importBtn.Property("disabled"); !disabled.Bool() {
		t.Error("import is enabled before the terms are accepted")
	}
	click(t, p, "onboarding-terms-checkbox")
	click(t, p, "onboarding-import-wallet")
	// MetaMask asks about metrics first.
	waitRoute(t, p, "#onboarding/metametrics")
	click(t, p, "metametrics-i-agree")
	waitRoute(t, p, "#onboarding/import-with-recovery-phrase")
	for i := range 12 {
		el(t, p, fmt.Sprintf("import-srp__srp-word-%d", i))
	}
}

func TestFixtureVaultUnlocksOnlyWithTheRightPassword(t *testing.T) {
	// 20000 iterations: only honouring keyMetadata (not the 10000 default) decrypts.
	vault := encryptVault(t, password, 20000, hdKeyrings())
	serveFixture(t, legacyFixture(vault, "http://127.0.0.1:1"))
	w := startWallet(t)
	p := w.open(t, "home.html")
	waitRoute(t, p, "home.html#unlock")

	// Scuttled like a real test build: main-world access to the global throws.
	_, err := p.Eval(`() => globalThis.HTMLInputElement`)
	if err == nil || !strings.Contains(err.Error(), `LavaMoat - property "HTMLInputElement" of globalThis is inaccessible under scuttling mode`) {
		t.Errorf("HTMLInputElement access: err %v, want the LavaMoat scuttling error", err)
	}

	typeInto(t, p, "unlock-password", "wrong password")
	click(t, p, "unlock-submit")
	if got := waitText(t, p, "unlock-error", func(s string) bool { return s != "" }); got != "Incorrect password" {
		t.Errorf("unlock-error = %q", got)
	}
	waitRoute(t, p, "#unlock")

	if err := el(t, p, "unlock-password").SelectAllText(); err != nil {
		t.Fatal(err)
	}
	typeInto(t, p, "unlock-password", password)
	click(t, p, "unlock-submit")
	icon := el(t, p, "account-menu-icon")
	// Like a real MetaMask build: the account and chain are in the app
	// state, not in attributes.
	for _, name := range []string{"data-address", "data-chain-id"} {
		for _, e := range []*rod.Element{icon, el(t, p, "network-display")} {
			if v, _ := e.Attribute(name); v != nil {
				t.Errorf("the test wallet has a %s attribute MetaMask lacks", name)
			}
		}
	}
	if ws := appState(t, p); !ws.IsUnlocked || ws.selected() != account0 || ws.ProviderConfig.ChainID != "0x539" {
		t.Errorf("stateHooks after unlock: %+v, want unlocked, %s, chain 0x539", ws, account0)
	}
	net := el(t, p, "network-display")
	if got, _ := net.Text(); got != "Localhost 8545" {
		t.Errorf("network-display = %q", got)
	}

	// The unlock lives in the worker: a second page opens unlocked.
	p2 := w.open(t, "home.html")
	el(t, p2, "account-menu-icon")
	if _, err := p.Activate(); err != nil { // background tabs get no animation frames
		t.Fatal(err)
	}

	click(t, p, "global-menu-settings")
	waitRoute(t, p, "#settings")
	click(t, p, "settings-back")
	el(t, p, "eth-overview-send")

	click(t, p, "global-menu-lock")
	waitRoute(t, p, "#unlock")
	el(t, p, "unlock-password")
}

func TestSplitFixtureWithPerChainNetworks(t *testing.T) {
	// An older vault: string mnemonic, no keyMetadata (10000 iterations).
	vault := encryptVault(t, password, 10000, []any{map[string]any{"type": "HD Key Tree",
		"data": map[string]any{"mnemonic": srp, "numberOfAccounts": 1, "hdPath": "m/44'/60'/0'/0"}}})
	var v map[string]any
	_ = json.Unmarshal([]byte(vault), &v)
	delete(v, "keyMetadata")
	b, _ := json.Marshal(v)
	fixture := map[string]any{
		"data": map[string]any{
			"KeyringController": map[string]any{"vault": string(b)},
			"AccountsController": map[string]any{"internalAccounts": map[string]any{
				"accounts": map[string]any{"a": map[string]any{"id": "a", "address": account1}}, "selectedAccount": "a"}},
			"NetworkController": map[string]any{
				"selectedNetworkClientId": "anvil",
				"networkConfigurationsByChainId": map[string]any{
					"0x1": map[string]any{"chainId": "0x1", "name": "Ethereum Mainnet", "nativeCurrency": "ETH",
						"rpcEndpoints": []any{map[string]any{"networkClientId": "mainnet", "url": "https://mainnet.invalid"}}},
					"0x7a69": map[string]any{"chainId": "0x7a69", "name": "Anvil 31337", "nativeCurrency": "ETH",
						"rpcEndpoints": []any{map[string]any{"networkClientId": "anvil", "url": "http://127.0.0.1:1"}}},
				},
			},
		},
		"meta": map[string]any{"storageKind": "split", "version": 216},
	}
	serveFixture(t, fixture)
	w := startWallet(t)
	p := w.open(t, "home.html")
	typeInto(t, p, "unlock-password", password)
	click(t, p, "unlock-submit")
	el(t, p, "account-menu-icon")
	if ws := appState(t, p); ws.selected() != account1 || ws.ProviderConfig.ChainID != "0x7a69" {
		t.Errorf("stateHooks account %s chain %s, want the AccountsController account %s on the selected client's chain 0x7a69",
			ws.selected(), ws.ProviderConfig.ChainID, account1)
	}
	net := el(t, p, "network-display")
	if got, _ := net.Text(); got != "Anvil 31337" {
		t.Errorf("network-display = %q, want the selected client's network", got)
	}
	res, err := p.Eval(`() => chrome.storage.local.get(null).then(s => Object.keys(s).sort().join(","))`)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Value.String(); got != "AccountsController,KeyringController,NetworkController,meta" {
		t.Errorf("split storage keys = %s", got)
	}
}
