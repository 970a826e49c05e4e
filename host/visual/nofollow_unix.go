//go:build !windows

package visual

import "syscall"

// oNoFollow makes an open fail on a symbolic link swapped in after the
// Lstat.
const oNoFollow = syscall.O_NOFOLLOW
