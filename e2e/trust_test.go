package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspacePluginTrust: opening a checkout runs none of its code.
// `mmcp tools` does not execute an unpinned .mmcp/plugins binary nor a
// config path one, `mmcp plugins` says how to trust them, and once pinned
// by sha256 (or with --trust-workspace-plugins) they run; a config path
// outside the workspace is refused even when trusted.
func TestWorkspacePluginTrust(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "no-deps")
	test := filepath.Join(testPlugins, "testplugin")
	inDir := installPlugin(t, test, filepath.Join(ws, ".mmcp", "plugins"), "marker")
	cfgBin := installPlugin(t, test, filepath.Join(ws, "tools"), "marker")
	outside := installPlugin(t, test, t.TempDir(), "marker")
	writeCfg := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ran := func(bin string) bool {
		_, err := os.Stat(bin + ".ran")
		return err == nil
	}
	// The .mmcp/plugins one, unpinned.
	r := mmcpCLI(t, ws, "tools")
	if r.Code != 0 || strings.Contains(r.Stdout, "marker_") || ran(inDir) {
		t.Fatalf("untrusted workspace plugin: exit %d, executed %v\n%s", r.Code, ran(inDir), r.Stdout)
	}
	r = mmcpCLI(t, ws, "plugins")
	if !strings.Contains(r.Stdout, "NOT RUN") || !strings.Contains(r.Stdout, "sha256") || !strings.Contains(r.Stdout, "--trust-workspace-plugins") || ran(inDir) {
		t.Fatalf("mmcp plugins does not say how to trust it:\n%s", r.Stdout)
	}
	// A config path, unpinned, and one outside the workspace (pinned).
	sum := sha256.Sum256(mustRead(t, test))
	pin := hex.EncodeToString(sum[:])
	writeCfg(`{"plugins":{"marker":{"path":"tools/mmcp-plugin-marker"},"far":{"path":"` + outside + `","sha256":"` + pin + `"}}}`)
	r = mmcpCLI(t, ws, "--trust-workspace-plugins", "tools")
	if ran(outside) || strings.Contains(r.Stdout, "far_") {
		t.Fatalf("a plugin outside the workspace ran:\n%s", r.Stdout)
	}
	if !ran(cfgBin) || !strings.Contains(r.Stdout, "marker_sleep") {
		t.Fatalf("--trust-workspace-plugins did not run the config plugin:\n%s\n%s", r.Stdout, r.Stderr)
	}
	_ = os.Remove(cfgBin + ".ran")
	r = mmcpCLI(t, ws, "tools")
	if ran(cfgBin) || ran(inDir) {
		t.Fatal("an unpinned config plugin ran without --trust-workspace-plugins")
	}
	// Pinned by sha256: the .mmcp/plugins one runs.
	writeCfg(`{"plugins":{"marker":{"sha256":"` + pin + `"}}}`)
	r = mmcpCLI(t, ws, "tools")
	if r.Code != 0 || !strings.Contains(r.Stdout, "marker_sleep") || !ran(inDir) {
		t.Fatalf("pinned workspace plugin: exit %d, executed %v\n%s\n%s", r.Code, ran(inDir), r.Stdout, r.Stderr)
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
