package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/client/mmcp"
)

// TestOfficialTypeScriptClient drives the host with the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk from npm).
func TestOfficialTypeScriptClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is required (scripts/setup.sh installs it)")
	}
	ws := walletWorkspace(t)
	cmd := exec.Command("node", filepath.Join(repoRoot(), "e2e", "ts", "client.cjs"), filepath.Join(bin, "mmcp"), ws, mmcp.RegistryHash)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `{"done":true}`) {
		t.Fatalf("TypeScript client: %v\n%s", err, tail(string(out), 40))
	}
	if !eventually(10e9, func() bool { return len(chromeFor(ws)) == 0 }) {
		t.Fatal("Chrome left behind")
	}
}

// TestZeroSetupTypeScriptClient: started by the official TypeScript SDK in
// an empty directory with no flags and no MMCP_* environment, mmcp lists
// its tools, launches the embedded test wallet unlocked on home with 25 ETH,
// and cleans up; artifacts go to the per-user state directory.
func TestZeroSetupTypeScriptClient(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	anvil := filepath.Join(repoRoot(), ".tools", "node_modules", ".bin")
	cmd := exec.Command("node", filepath.Join(repoRoot(), "e2e", "ts", "zero_setup.cjs"), filepath.Join(bin, "mmcp"), dir, home)
	cmd.Env = append(os.Environ(), "PATH="+anvil+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `{"done":true}`) {
		t.Fatalf("zero-setup client: %v\n%s", err, tail(string(out), 40))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("mmcp wrote into the directory it was started in: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "mmcp", "llm-knowledge")); err != nil {
		t.Fatalf("no knowledge store in the per-user state directory: %v", err)
	}
}
