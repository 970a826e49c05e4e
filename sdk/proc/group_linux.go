package proc

import (
	"os/exec"
	"syscall"
)

// Setup puts cmd in a new process group that receives SIGKILL when the
// parent thread dies.
func Setup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// SetupGraceful is Setup with SIGTERM, for children (plugins) that clean up
// their own children when told to stop.
func SetupGraceful(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// KillGroup kills cmd's whole process group, and for a Command every
// process of its tree that left the group (setsid). It is a no-op when
// cmd has not started.
func KillGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	killMarked(cmd)
}
