package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/testwallet"
)

// writeConfig writes the workspace's .mmcp/config.json.
func writeConfig(t *testing.T, ws, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, ".mmcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLaunchChainSettings: the chain plugin's port and chainId settings
// decide the chain, and the wallet state is built for that chain: the
// wallet reports the configured chain id and reads its balance there.
func TestLaunchChainSettings(t *testing.T) {
	ws := walletWorkspace(t)
	port := testutil.FreePort(t)
	writeConfig(t, ws, `{"plugins":{"chain":{"settings":{"port":`+strconv.Itoa(port)+`,"chainId":31338}}}}`)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
	t.Cleanup(func() { h.Call("mm_cleanup", map[string]any{}) })
	// The chain's port comes from the settings; the fixture's is free.
	var res map[string]any
	fport := testutil.FreePort(t)
	must(t, h.Call("mm_launch", map[string]any{"ports": map[string]any{"fixtureServer": fport}})).Decode(t, &res)
	st := launchState(t, res)
	if st.ChainID == nil || *st.ChainID != 31338 {
		t.Fatalf("wallet chain id %v, want the configured 31338 (state %+v)", st.ChainID, st)
	}
	if st.CurrentScreen != "home" || st.Balance == nil || *st.Balance != "25 ETH" {
		t.Fatalf("launch state %+v (balance %v)", st, st.Balance)
	}
	if got := chainURL(t, h); !strings.HasSuffix(got, ":"+strconv.Itoa(port)) {
		t.Fatalf("chain URL %s, want port %d", got, port)
	}
	var id string
	ethRPC(t, chainURL(t, h), "eth_chainId", &id)
	if id != "0x7a6a" {
		t.Fatalf("node chain id %s, want 0x7a6a", id)
	}
	// The wallet itself talks to the configured chain.
	eventuallyText(t, h, "eth-overview__primary-currency", "25 ETH")
	must(t, h.Call("mm_cleanup", map[string]any{}))
	nothingLeft(t, ws, port, fport)
}

// TestLaunchBuildSettingsExtensionPath: with autoBuild false, mm_launch
// loads the build where the build plugin's extensionPath setting says it
// is, and fails naming that place when it is missing.
func TestLaunchBuildSettingsExtensionPath(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"ws","private":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, ws, `{"plugins":{"build":{"settings":{"extensionPath":"out/wallet"}}}}`)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
	t.Cleanup(func() { h.Call("mm_cleanup", map[string]any{}) })

	args := map[string]any{"autoBuild": false, "ports": map[string]any{"anvil": testutil.FreePort(t)}}
	env := h.Call("mm_launch", args)
	wantCode(t, env, "MM_LAUNCH_FAILED")
	if want := filepath.Join(ws, "out", "wallet"); !strings.Contains(env.Error.Message, want) {
		t.Fatalf("error %q does not name %s", env.Error.Message, want)
	}

	if err := testwallet.WriteTo(filepath.Join(ws, "out", "wallet")); err != nil {
		t.Fatal(err)
	}
	st := launchState(t, launchFree(t, h, args))
	if st.CurrentScreen != "home" {
		t.Fatalf("launch state %+v", st)
	}
}
