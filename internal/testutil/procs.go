package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is one process as /proc/<pid>/stat shows it.
type Proc struct {
	Pid, PPid, Pgrp int
}

// LiveProcs lists the running processes (zombies left out), from /proc:
// Linux only, none elsewhere.
func LiveProcs() []Proc {
	entries, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and ")".
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, Proc{Pid: pid, PPid: ppid, Pgrp: pgrp})
	}
	return out
}
