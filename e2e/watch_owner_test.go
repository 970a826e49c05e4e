package e2e

import (
	"context"
	"errors"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// TestWatchOwnedOverHTTP: over HTTP the host's watch build belongs to the
// client that started it (issue 51, 5). Another client, with no session,
// neither reads it (start, wait_ready) nor stops it: it answers
// MM_WATCH_NOT_OWNED, and the owner's watcher keeps running and answers
// its next wait_ready. Once the owner stops it, another client may start
// one of its own.
func TestWatchOwnedOverHTTP(t *testing.T) {
	ws := watchWorkspace(t)
	p := startServe(t, ws)
	a, b := p.connectAs(t, "agent-a"), p.connectAs(t, "agent-b")
	t.Cleanup(func() {
		_, _ = a.CallEnvelope(context.Background(), "mm_build_watch_stop", nil)
		_, _ = b.CallEnvelope(context.Background(), "mm_build_watch_stop", nil)
	})
	var st struct {
		Running bool
		Pid     int
	}
	call(t, a, "mm_build_watch_start", nil, &st)
	if !st.Running || st.Pid == 0 {
		t.Fatalf("a's watch start %+v", st)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"mm_build_watch_start", nil},
		{"mm_build_watch_wait_ready", map[string]any{"timeoutMs": 1000}},
		{"mm_build_watch_stop", nil},
	} {
		env, err := b.CallEnvelope(context.Background(), c.tool, c.args)
		var mmErr *sdk.Error
		if !errors.As(err, &mmErr) || mmErr.Code != sdk.CodeWatchNotOwned {
			t.Fatalf("%s from another client: %+v %v, want %s", c.tool, env, err, sdk.CodeWatchNotOwned)
		}
	}
	var ready waitReadyResult
	call(t, a, "mm_build_watch_wait_ready", map[string]any{"timeoutMs": 30000}, &ready)
	if ready.Rebuild.Seq != 1 || ready.BuildID == "" {
		t.Fatalf("a's wait_ready after b's attempts (b's stop must not have stopped it): %+v", ready)
	}
	call(t, a, "mm_build_watch_stop", nil, &st)
	if st.Running {
		t.Fatalf("a's stop: %+v", st)
	}
	call(t, b, "mm_build_watch_start", nil, &st)
	if !st.Running {
		t.Fatalf("b's start once a stopped: %+v", st)
	}
	call(t, b, "mm_build_watch_stop", nil, &st)
}
