package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TempDir creates a directory in os.TempDir named <prefix><pid>-<random>,
// owned by this process: RemoveStale removes it once this process is gone
// (killed before it could clean up).
func TempDir(prefix string) (string, error) {
	return os.MkdirTemp("", fmt.Sprintf("%s%d-", prefix, os.Getpid()))
}

// Stale lists the entries of dir named <prefix><pid>-... whose process no
// longer exists (names without a pid, and those of live processes, are
// not stale).
func Stale(dir, prefix string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	var stale []string
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		i := strings.IndexByte(rest, '-')
		if i <= 0 {
			continue
		}
		if pid, err := strconv.Atoi(rest[:i]); err == nil && pid > 0 && !alive(pid) {
			stale = append(stale, m)
		}
	}
	return stale
}

// RemoveStale removes the Stale entries of dir and returns them.
func RemoveStale(dir, prefix string) []string {
	var removed []string
	for _, m := range Stale(dir, prefix) {
		if os.RemoveAll(m) == nil {
			removed = append(removed, m)
		}
	}
	return removed
}
