//go:build windows

package browser

import (
	"context"
	"os"
)

// killGroup kills Chrome; on Windows leakless and Chrome's job handling
// take care of its children.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func waitGroupGone(ctx context.Context, pid int) error { return nil }

// ChromeProcessAlive reports whether pid is a live process.
func ChromeProcessAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p
	return true
}
