//go:build !linux

package proc

import "os/exec"

// Command is exec.Command where there is no parent-death signal; KillGroup
// still kills the process.
func Command(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }
