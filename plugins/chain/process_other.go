//go:build !linux

package chain

import (
	"os"
	"os/exec"
	"syscall"
)

// sysProcAttr is empty off Linux: no process groups or Pdeathsig.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup interrupts (or kills) the process itself.
func signalGroup(cmd *exec.Cmd, kill bool) error {
	if kill {
		return cmd.Process.Kill()
	}
	return cmd.Process.Signal(os.Interrupt)
}
