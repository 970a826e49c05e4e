package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// watcherScript is a watch build in sh: it "builds" at start and whenever
// a file named trigger appears; a trigger saying "bad" is a failed build
// (a SyntaxError line, nothing written). With silent=1 it prints nothing.
const watcherScript = `build() { mkdir -p dist/chrome; echo "{\"v\":\"$1\"}" > dist/chrome/manifest.json; echo "$1" > dist/chrome/ui.js; [ "$silent" = 1 ] || echo "Finished 'build' after 3 ms"; }
build start
while :; do
  if [ -f trigger ]; then
    t=$(cat trigger); rm trigger
    if [ "$t" = bad ]; then echo "SyntaxError: Unexpected token (1:5)"; echo "    at ui.js:1"; else build "$t"; fi
  fi
  sleep 0.02
done
`

func watchPlugin(t *testing.T, settings map[string]any) (*Plugin, string) {
	t.Helper()
	return scriptPlugin(t, watcherScript, settings)
}

func trigger(t *testing.T, ws, what string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "trigger"), []byte(what), 0o644); err != nil {
		t.Fatal(err)
	}
}

func waitReady(t *testing.T, p *Plugin) (sdk.Rebuild, *sdk.Error) {
	t.Helper()
	r, err := p.waitReady(context.Background(), 10000, sdk.NopEvents{})
	var e *sdk.Error
	if err != nil && !errors.As(err, &e) {
		t.Fatalf("wait ready: %v", err)
	}
	return r, e
}

// TestWatchLifecycle: the initial build counts, each change is one
// rebuild, a failed build answers the watcher's error text, the next good
// change recovers, and stop leaves no process.
func TestWatchLifecycle(t *testing.T) {
	p, ws := watchPlugin(t, map[string]any{})
	st, err := p.watchStart()
	if err != nil || !st.Running || st.Pid == 0 {
		t.Fatalf("start: %+v %v", st, err)
	}
	if again, _ := p.watchStart(); again.Pid != st.Pid {
		t.Fatalf("a second start started another watcher: pid %d, was %d", again.Pid, st.Pid)
	}
	r, e := waitReady(t, p)
	if e != nil || r.Seq != 1 || r.By != "pattern" || r.BuildID == "" {
		t.Fatalf("initial build: %+v %v", r, e)
	}

	trigger(t, ws, "two")
	r2, e := waitReady(t, p)
	if e != nil || r2.Seq != 2 || r2.BuildID == r.BuildID {
		t.Fatalf("rebuild: %+v %v (first build id %s)", r2, e, r.BuildID)
	}

	trigger(t, ws, "bad")
	_, e = waitReady(t, p)
	if e == nil || e.Code != sdk.CodeBuildFailed || e.Details["output"] != "SyntaxError: Unexpected token (1:5)\n    at ui.js:1" {
		t.Fatalf("broken build: %+v", e)
	}
	if st := mustStatus(t, p); st.State != sdk.WatchFailed {
		t.Fatalf("state after a failed build %q, want failed", st.State)
	}

	trigger(t, ws, "three")
	if r3, e := waitReady(t, p); e != nil || r3.Seq != 4 {
		t.Fatalf("recovery: %+v %v", r3, e)
	}

	// Nothing new: the wait times out with the watcher's state.
	if _, err := p.waitReady(context.Background(), 300, sdk.NopEvents{}); sdk.AsError(err).Code != sdk.CodeTimeout {
		t.Fatalf("wait without a change: %v, want MM_TIMEOUT", err)
	}

	p.watchStop()
	// Stop waits for the watcher itself; the rest of its group got the
	// same SIGKILL and is gone moments later.
	if left := groupLeftAfter(st.Pid, 5*time.Second); len(left) > 0 {
		t.Fatalf("the watcher's process group %d still has %v 5 s after stop", st.Pid, left)
	}
	if _, err := p.waitReady(context.Background(), 100, sdk.NopEvents{}); sdk.AsError(err).Code != sdk.CodeInvalidInput {
		t.Fatalf("wait after stop: %v, want MM_INVALID_INPUT", err)
	}
}

// TestWatchQuiet: a watcher whose output never says "ready" is ready once
// the output directory has been quiet for quietMs.
func TestWatchQuiet(t *testing.T) {
	p, ws := watchPlugin(t, map[string]any{"quietMs": 200})
	t.Setenv("silent", "1")
	if _, err := p.watchStart(); err != nil {
		t.Fatal(err)
	}
	r, e := waitReady(t, p)
	if e != nil || r.By != "quiet" {
		t.Fatalf("initial build: %+v %v", r, e)
	}
	trigger(t, ws, "two")
	start := time.Now()
	r2, e := waitReady(t, p)
	if e != nil || r2.Seq != 2 || r2.By != "quiet" {
		t.Fatalf("rebuild: %+v %v", r2, e)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Fatalf("answered after %s, before the directory was quiet for 200ms", waited)
	}
}

// TestWatchExit: a watch command that dies answers its output, not a
// timeout.
func TestWatchExit(t *testing.T) {
	p, ws := watchPlugin(t, map[string]any{})
	if err := os.WriteFile(filepath.Join(ws, "watch.sh"), []byte("echo 'Cannot find module gulp'; exit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := p.watchStart(); err != nil {
		t.Fatal(err)
	}
	_, e := waitReady(t, p)
	if e == nil || e.Code != sdk.CodeBuildFailed {
		t.Fatalf("exited watcher: %+v", e)
	}
	if out, _ := e.Details["output"].(string); !strings.Contains(out, "Cannot find module gulp") {
		t.Fatalf("output %q lacks the watcher's last line", out)
	}
}

func mustStatus(t *testing.T, p *Plugin) sdk.WatchStatus {
	t.Helper()
	st, err := p.watchStart()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// groupLeftAfter polls until process group pgid is empty or d has passed,
// and returns its last members.
func groupLeftAfter(pgid int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := groupMembers(pgid)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupMembers lists the live (not zombie) processes of process group pgid.
func groupMembers(pgid int) []int {
	var out []int
	for _, p := range testutil.LiveProcs() {
		if p.Pgrp == pgid {
			out = append(out, p.Pid)
		}
	}
	return out
}
