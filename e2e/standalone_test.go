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
	chain, out := callHold(t, "mmcp-plugin-chain", ws, "start", fmt.Sprintf(`{"port":%d}`, port))
	var started struct {
		OK     bool
		Result struct {
			RPCURL  string `json:"rpcUrl"`
			Running bool
		}
	}
	if err := json.Unmarshal(out, &started); err != nil || !started.OK || !started.Result.Running {
		t.Fatalf("chain start: %v\n%s", err, out)
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
	stopHeld(t, chain)
	if !eventually(5*time.Second, func() bool { return len(anvilOn(port)) == 0 }) {
		t.Fatalf("Anvil outlived its standalone plugin: %v", anvilOn(port))
	}
}

// callHold starts `<plugin> call <tool> <args> -hold` on workspace ws and
// returns the process and the result it printed before holding (pretty
// JSON, ending with a "}" line). The process is killed when the test ends.
func callHold(t testing.TB, plugin, ws, tool, args string) (*exec.Cmd, []byte) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, plugin), "call", tool, args, "-hold")
	cmd.Env = append(os.Environ(), "MMCP_REPO="+ws)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var buf strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		buf.WriteString(sc.Text() + "\n")
		if sc.Text() == "}" {
			break
		}
	}
	return cmd, []byte(buf.String())
}

// stopHeld stops a held plugin with Ctrl-C (SIGINT) and waits for it.
func stopHeld(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not stop on SIGINT", filepath.Base(cmd.Path))
	}
}
