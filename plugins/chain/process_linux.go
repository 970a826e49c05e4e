//go:build linux

package chain

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts Anvil in its own process group and has the kernel kill
// it when the plugin dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends SIGTERM (or SIGKILL) to the process group of cmd.
func signalGroup(cmd *exec.Cmd, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}
