package proc

import (
	"os/exec"
	"syscall"
)

// supervisor is the group leader of a Command: it runs the command in the
// background, waits for it and exits with its status; when the process
// that started it dies (the parent-death signal, SIGTERM) it kills its own
// process group, so grandchildren that outlive the direct child (yarn's
// sh and node) go too.
const supervisor = `trap 'kill -KILL -$$' TERM HUP; "$@" & wait $!`

// Command returns a command that runs name with args in a new process
// group whose leader, a small sh supervisor, kills the whole group when
// the process that started it dies, even by SIGKILL. Kill the group with
// KillGroup to end it early. The command's stdin is /dev/null.
func Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", append([]string{"-c", supervisor, "mmcp-supervisor", name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}
