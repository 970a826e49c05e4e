package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	mine := strconv.Itoa(os.Getpid())
	for _, n := range []string{"mmcp-chrome-" + deadPID + "-123", "mmcp-chrome-" + mine + "-456", "mmcp-chrome-legacy789", "other-" + deadPID + "-1"} {
		if err := os.MkdirAll(filepath.Join(dir, n, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removed := RemoveStale(dir, "mmcp-chrome-")
	if len(removed) != 1 || filepath.Base(removed[0]) != "mmcp-chrome-"+deadPID+"-123" {
		t.Fatalf("removed %v", removed)
	}
	for _, n := range []string{"mmcp-chrome-" + mine + "-456", "mmcp-chrome-legacy789", "other-" + deadPID + "-1"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}
