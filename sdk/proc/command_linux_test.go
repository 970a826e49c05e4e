package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// When this test binary runs with MMCP_PROC_TEST_PARENT set, it plays a
// plugin: it starts a supervised tree (sh -> sleep, sh -> sleep), prints
// the group id and waits to be killed.
func init() {
	if os.Getenv("MMCP_PROC_TEST_PARENT") == "" {
		return
	}
	cmd := Command("sh", "-c", "sleep 300 & sleep 300")
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(cmd.Process.Pid)
	// A sleep, not select{}: with no other goroutine the runtime would
	// call select{} a deadlock, exit, and the group would die with it.
	time.Sleep(time.Hour)
}

// TestCommandDiesWithParent: SIGKILL of the process that started a
// Command leaves no process of its group.
func TestCommandDiesWithParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run", "^$")
	parent.Env = append(os.Environ(), "MMCP_PROC_TEST_PARENT=1")
	out, _ := parent.StdoutPipe()
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pgid, err := strconv.Atoi(line[:len(line)-1])
	if err != nil {
		t.Fatalf("parent said %q", line)
	}
	// The grandchildren are running in the group.
	deadline := time.Now().Add(10 * time.Second)
	for groupSize(pgid) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("group %d has %d processes", pgid, groupSize(pgid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = parent.Process.Kill()
	_ = parent.Wait()
	deadline = time.Now().Add(10 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("group %d still alive (%d processes) after its parent died", pgid, groupSize(pgid))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupSize counts the processes of process group pgid.
func groupSize(pgid int) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			n++
		}
	}
	return n
}
