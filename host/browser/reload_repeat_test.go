package browser

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestReloadsInARow: each of several in-place reloads in a row takes the
// new service worker only: the workers of the extension mmcp listens to
// and remembers are the ones Chrome runs, never a worker of an earlier
// load (attaching to a gone worker waited out its 2 s bound, once more
// with each reload: a session's tenth restore took 20 s more than its
// first).
func TestReloadsInARow(t *testing.T) {
	s := launchTest(t, func(o *Options) { o.ExtensionPath = extCopy(t, nil) })
	for i := 1; i <= 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		start := time.Now()
		r, err := s.ReloadExtension(ctx)
		if err != nil || !r.Worker {
			cancel()
			t.Fatalf("reload %d: %+v %v", i, r, err)
		}
		live := s.liveWorkers(ctx)
		tracked := s.tabs.workersOf(s.extID)
		cancel()
		t.Logf("reload %d: %d ms, workers live %v, tracked %v", i, time.Since(start).Milliseconds(), live, tracked)
		for _, id := range tracked {
			if !slices.Contains(live, id) {
				t.Fatalf("reload %d: mmcp still tracks worker %s, which Chrome no longer runs (live %v)", i, id, live)
			}
		}
	}
}
