//go:build unix

package sdk

import (
	"os"

	"golang.org/x/sys/unix"
)

// nullStdin points fd 0 at the null device: go-plugin hands a plugin the
// host's stdin, which is the MCP channel.
func nullStdin() {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return
	}
	_ = unix.Dup2(int(f.Fd()), 0)
	_ = f.Close()
}
