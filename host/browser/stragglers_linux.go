package browser

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// killStragglers kills the processes outside Chrome's group that still use
// dir (its crash handler is started in a group of its own) and waits, up to
// ctx, until they are gone.
func killStragglers(ctx context.Context, dir string) {
	if dir == "" {
		return
	}
	for {
		pids := pidsUsing(dir)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pidsUsing lists live processes whose command line mentions dir.
func pidsUsing(dir string) []int {
	var pids []int
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	self := os.Getpid()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil || pid == self {
			continue
		}
		if st, err := os.ReadFile(filepath.Join(filepath.Dir(f), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie holds nothing
		}
		pids = append(pids, pid)
	}
	return pids
}
