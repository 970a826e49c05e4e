package proc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// TreeVar is the environment variable that marks every process of a
// Command's tree: the supervisor and all its descendants inherit it, also
// those that leave the process group (setsid, a daemonizing dev server),
// so KillGroup and the supervisor find them in /proc.
const TreeVar = "MMCP_PROC_TREE"

// supervisor is the group leader of a Command: it runs the command in the
// background, waits for it and exits with its status; when the process
// that started it dies (the parent-death signal, SIGTERM) it kills every
// process that carries its tree mark and its own process group, so
// grandchildren that outlive the direct child (yarn's sh and node), also
// in a session of their own, go too.
const supervisor = `trap 'for f in $(grep -lsF -- "` + TreeVar + `=$` + TreeVar + `" /proc/[0-9]*/environ); do p=${f#/proc/}; p=${p%/environ}; [ "$p" = $$ ] || kill -KILL "$p" 2>/dev/null; done; kill -KILL -$$' TERM HUP; "$@" & wait $!`

// Command returns a command that runs name with args in a new process
// group whose leader, a small sh supervisor, kills the whole tree when
// the process that started it dies, even by SIGKILL. Kill the tree with
// KillGroup to end it early. The command's stdin is /dev/null. Its
// environment is this process's plus the tree mark (TreeVar): append to
// cmd.Env, do not replace it.
func Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", append([]string{"-c", supervisor, "mmcp-supervisor", name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	cmd.Env = append(os.Environ(), TreeVar+"="+hex.EncodeToString(b))
	return cmd
}

// killMarked kills every process (but this one) whose environment holds
// cmd's tree mark: the descendants that left its process group.
func killMarked(cmd *exec.Cmd) {
	var mark []byte
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, TreeVar+"=") {
			mark = []byte(kv)
		}
	}
	if mark == nil {
		return
	}
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, mark) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}
