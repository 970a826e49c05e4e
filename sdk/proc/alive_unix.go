//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists (EPERM: it exists, not ours).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
