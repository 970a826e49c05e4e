package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfficialTypeScriptClient drives the host with the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk from npm).
func TestOfficialTypeScriptClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is required (scripts/setup.sh installs it)")
	}
	ws := walletWorkspace(t)
	cmd := exec.Command("node", filepath.Join(repoRoot(), "e2e", "ts", "client.cjs"), filepath.Join(bin, "mmcp"), ws)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `{"done":true}`) {
		t.Fatalf("TypeScript client: %v\n%s", err, tail(string(out), 40))
	}
	if !eventually(10e9, func() bool { return len(chromeFor(ws)) == 0 }) {
		t.Fatal("Chrome left behind")
	}
}
