package chain

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits up to 5 s for pid to disappear.
func waitGone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

// TestHelperPlugin is not a test: run by TestAnvilDiesWithThePlugin as the
// "plugin process", it starts Anvil, reports its pid and waits to be killed.
func TestHelperPlugin(t *testing.T) {
	if os.Getenv("MMCP_CHAIN_HELPER") != "1" {
		t.Skip("helper process only")
	}
	p, _ := newPlugin(t, nil)
	port, _ := strconv.Atoi(os.Getenv("MMCP_CHAIN_HELPER_PORT"))
	if _, err := p.start(context.Background(), sdk.ChainOptions{Port: port}); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("anvil-pid %d\n", p.node.proc.cmd.Process.Pid)
	time.Sleep(time.Minute)
}

func TestAnvilDiesWithThePlugin(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPlugin$", "-test.count=1")
	// The helper is killed, so it never removes its own test's temporary
	// folder: that goes under this test's, which is removed.
	cmd.Env = append(os.Environ(), "MMCP_CHAIN_HELPER=1", "MMCP_CHAIN_HELPER_PORT="+strconv.Itoa(testutil.FreePort(t)), "ANVIL_PATH="+anvilBin(t), "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "anvil-pid %d", &pid); err == nil {
			break
		}
	}
	if pid == 0 || !alive(pid) {
		t.Fatalf("helper did not start anvil (pid %d)", pid)
	}
	// The plugin dies without a chance to clean up.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !waitGone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("anvil %d outlived its plugin process", pid)
	}
}

func TestAnvilThatDiesOnItsOwnIsNotRunning(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin(t, nil)
	ctx := context.Background()
	startFresh(t, p, sdk.ChainOptions{})
	proc := p.node.proc
	if err := syscall.Kill(proc.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-proc.done
	if st, _ := chainStatus(ctx, p); st.Running {
		t.Fatalf("status = %+v after anvil died", st)
	}
	_, err := p.Snapshot(ctx, sdk.SnapshotRequest{})
	testutil.WantCode(t, err, sdk.CodeChainNotRunning)
	// And it can be started again.
	if st := startFresh(t, p, sdk.ChainOptions{}); !st.Running {
		t.Fatalf("restart = %+v", st)
	}
}
