package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	script := "sleep 300 & sleep 300"
	if f := os.Getenv("MMCP_PROC_TEST_PIDFILE"); f != "" {
		// A grandchild in a session of its own: outside the group.
		script = "setsid sleep 300 & echo $! > " + f + "; sleep 300"
	}
	cmd := Command("sh", "-c", script)
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

// TestCommandKillsSetsidDescendants: a descendant that left the process
// group with setsid dies with the tree, by KillGroup and by the death of
// the process that started the Command.
func TestCommandKillsSetsidDescendants(t *testing.T) {
	t.Run("KillGroup", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pid")
		cmd := Command("sh", "-c", "setsid sleep 300 & echo $! > "+pidfile+"; sleep 300")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		escaped := readPid(t, pidfile)
		KillGroup(cmd)
		_ = cmd.Wait()
		waitGone(t, escaped)
	})
	t.Run("parent dies", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pid")
		parent := exec.Command(os.Args[0], "-test.run", "^$")
		parent.Env = append(os.Environ(), "MMCP_PROC_TEST_PARENT=1", "MMCP_PROC_TEST_PIDFILE="+pidfile)
		if err := parent.Start(); err != nil {
			t.Fatal(err)
		}
		escaped := readPid(t, pidfile)
		_ = parent.Process.Kill()
		_ = parent.Wait()
		waitGone(t, escaped)
	})
}

// readPid waits for a pid in file p.
func readPid(t *testing.T, p string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(p)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone fails the test when process pid still lives (not a zombie)
// 10 s from now, and kills it then.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d that left the group with setsid outlived its tree", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
