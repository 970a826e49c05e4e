//go:build !windows

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

// killGroup SIGKILLs Chrome's process group (Chrome runs as a group leader
// under leakless, so its renderers, GPU and zygote processes go with it).
func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// waitGroupGone polls until no live (non-zombie) process is left in the
// process group pgid, killing what is still there (a child that Chrome
// forked as the group was killed).
func waitGroupGone(ctx context.Context, pgid int) error {
	for {
		if !groupAlive(pgid) {
			return nil
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// groupAlive reports whether any non-zombie process is in group pgid.
func groupAlive(pgid int) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		state, group, ok := procStat(f)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat reads the state and process group of /proc/<pid>/stat.
func procStat(path string) (state byte, pgrp int, ok bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ..."; comm may contain spaces.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 || i+2 >= len(raw) {
		return 0, 0, false
	}
	f := bytes.Fields(raw[i+2:])
	if len(f) < 3 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], g, true
}

// ChromeProcessAlive reports whether pid is a live (not zombie) process.
// Tests use it to prove Close left nothing behind.
func ChromeProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		state, _, ok := procStat("/proc/" + strconv.Itoa(pid) + "/stat")
		return ok && state != 'Z' && state != 'X'
	}
	return syscall.Kill(pid, 0) == nil
}
