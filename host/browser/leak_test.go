package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const helperEnv = "MMCP_BROWSER_TEST_HELPER"

// TestHelperLaunchAndHang is not a test: run as a subprocess by
// TestChromeDiesWithKilledHost, it launches Chrome, reports the pid and
// profile dir, and waits to be killed.
func TestHelperLaunchAndHang(t *testing.T) {
	out := os.Getenv(helperEnv)
	if out == "" {
		t.Skip("helper process only")
	}
	s, err := Launch(context.Background(), Options{Pages: testPages, ExtensionPath: testExt(t), Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("%d %s", s.PID(), s.UserDataDir())
	if err := os.WriteFile(out+".tmp", []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Rename(out+".tmp", out)
	time.Sleep(time.Minute)
}

// TestChromeDiesWithKilledHost SIGKILLs a process that launched Chrome:
// Chrome must not outlive it.
func TestChromeDiesWithKilledHost(t *testing.T) {
	if _, err := FindChrome(""); err != nil {
		t.Fatal("no chrome (make setup installs it):", err)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	out := filepath.Join(t.TempDir(), "helper.out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLaunchAndHang$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var pid int
	var dir string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(out); err == nil {
			f := strings.Fields(string(b))
			pid, _ = strconv.Atoi(f[0])
			dir = f[1]
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("helper never launched chrome")
	}
	defer os.RemoveAll(dir)
	if !ChromeProcessAlive(pid) {
		t.Fatal("chrome not running in the helper")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := waitGroupGone(ctx, pid); err != nil {
		t.Fatalf("chrome group %d outlived its killed host: %v", pid, err)
	}
	// Chrome's crash handler runs outside its process group and exits on
	// its own once Chrome is gone: allow it a moment.
	left := procsWith(dir)
	for end := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(end); left = procsWith(dir) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Fatalf("processes still using %s: %v", dir, left)
	}
}
