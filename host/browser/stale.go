package browser

import (
	"context"
	"os"
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
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}
