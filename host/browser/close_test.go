package browser

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// procsWith returns the pids whose command line mentions s.
func procsWith(s string) []string {
	var pids []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte(s)) {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

func TestCloseLeavesNoChromeAndNoProfile(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	s := launchTest(t)
	dir, pid := s.UserDataDir(), s.PID()
	if n := len(procsWith(dir)); n < 2 {
		t.Fatalf("expected chrome processes using %s, found %d", dir, n)
	}
	if !ChromeProcessAlive(pid) {
		t.Fatalf("chrome pid %d not alive before close", pid)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := procsWith(dir); len(left) > 0 {
		t.Fatalf("processes still using %s after Close: %v", dir, left)
	}
	if ChromeProcessAlive(pid) {
		t.Fatalf("chrome pid %d alive after close", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("user data dir %s still exists (err %v)", dir, err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("second close: %v", err)
	}
}
