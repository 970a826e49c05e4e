package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// TestChainAndContractsStandalone starts a chain with the chain plugin on
// its own (call start -hold) and seeds hst with the contracts plugin on its
// own: no host involved. Stopping the chain plugin stops its Anvil.
func TestChainAndContractsStandalone(t *testing.T) {
	port := testutil.FreePort(t)
	ws := t.TempDir()
	chain := exec.Command(filepath.Join(bin, "mmcp-plugin-chain"), "call", "start", fmt.Sprintf(`{"port":%d}`, port), "-hold")
	chain.Env = append(os.Environ(), "MMCP_REPO="+ws)
	stdout, err := chain.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = chain.Process.Kill(); _ = chain.Wait() }()
	// The start result is printed (pretty JSON) before the plugin holds.
	var buf strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		buf.WriteString(sc.Text() + "\n")
		if sc.Text() == "}" {
			break
		}
	}
	var started struct {
		OK     bool
		Result struct {
			RPCURL  string `json:"rpcUrl"`
			Running bool
		}
	}
	if err := json.Unmarshal([]byte(buf.String()), &started); err != nil || !started.OK || !started.Result.Running {
		t.Fatalf("chain start: %v\n%s", err, buf.String())
	}
	if len(anvilOn(port)) == 0 {
		t.Fatal("no Anvil process for the standalone chain")
	}
	deploy := exec.Command(filepath.Join(bin, "mmcp-plugin-contracts"), "call", "deploy",
		fmt.Sprintf(`{"rpcUrl":%q,"contractName":"hst"}`, started.Result.RPCURL))
	deploy.Env = append(os.Environ(), "MMCP_REPO="+ws)
	out, err := deploy.Output()
	var deployed struct {
		OK     bool
		Result struct {
			ContractName    string
			ContractAddress string
		}
	}
	if err != nil || json.Unmarshal(out, &deployed) != nil || !deployed.OK || deployed.Result.ContractName != "hst" {
		t.Fatalf("standalone deploy: %v\n%s", err, out)
	}
	hasCode(t, started.Result.RPCURL, deployed.Result.ContractAddress)
	_ = chain.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- chain.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the chain plugin did not stop on SIGINT")
	}
	if !eventually(5*time.Second, func() bool { return len(anvilOn(port)) == 0 }) {
		t.Fatalf("Anvil outlived its standalone plugin: %v", anvilOn(port))
	}
}
