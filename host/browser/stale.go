package browser

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// RemoveStaleProfiles removes the Chrome profiles of hosts that were
// killed before they could (their pid is gone), after killing any process
// still using one (Chrome's crash handler runs in a group of its own). It
// returns the directories removed.
func RemoveStaleProfiles() []string {
	var removed []string
	for _, dir := range proc.Stale(os.TempDir(), ProfilePrefix) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		killStragglers(ctx, dir)
		cancel()
		removeSingletonDir(dir)
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// removeSingletonDir removes the directory Chrome makes in its TMPDIR for
// the profile's singleton socket (<profile>/SingletonSocket links into it),
// which Chrome removes only on a clean exit. Chrome's TMPDIR stays the
// host's: a directory inside the profile makes the socket's path too long
// for a Unix socket under a long TMPDIR, and Chrome refuses to start.
func removeSingletonDir(userDir string) {
	target, err := os.Readlink(filepath.Join(userDir, "SingletonSocket"))
	if err != nil || filepath.Base(target) != "SingletonSocket" {
		return
	}
	if dir := filepath.Dir(target); filepath.Dir(dir) == filepath.Clean(os.TempDir()) {
		_ = os.RemoveAll(dir)
	}
}
