//go:build !linux

package proc

import "os/exec"

// Setup is a no-op where the parent-death signal does not exist; children
// are still killed by KillGroup and by the plugin SDK's parent watchdog.
func Setup(*exec.Cmd) {}

// SetupGraceful is Setup.
func SetupGraceful(*exec.Cmd) {}

// KillGroup kills cmd's process.
func KillGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Kill()
}
