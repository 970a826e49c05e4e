package build

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// scriptPlugin is a build plugin whose watch command is sh running script
// in a fresh workspace with node_modules.
func scriptPlugin(t *testing.T, script string, settings map[string]any) (*Plugin, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "watch.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	settings["watchCommand"] = "sh watch.sh"
	return configured(t, ws, settings), ws
}

// within runs f and fails the test when it has not returned after d.
func within(t *testing.T, what string, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not answer within %s", what, d)
	}
}

// TestWatchHostileOutput: a build folder holding a link to /dev/zero and
// a FIFO nobody writes: wait_ready answers (the build id leaves them out
// and says so), stop answers, and a start after it runs one watcher.
func TestWatchHostileOutput(t *testing.T) {
	script := `mkdir -p dist/chrome; echo '{}' > dist/chrome/manifest.json; ln -sf /dev/zero dist/chrome/zero.js; mkfifo dist/chrome/a.json
echo "Finished 'build' after 3 ms"
exec sleep 300
`
	p, _ := scriptPlugin(t, script, map[string]any{})
	st, err := p.watchStart()
	if err != nil {
		t.Fatal(err)
	}
	var r sdk.Rebuild
	var e *sdk.Error
	within(t, "wait_ready", 10*time.Second, func() { r, e = waitReady(t, p) })
	if e != nil || r.BuildID == "" {
		t.Fatalf("wait_ready %+v %v", r, e)
	}
	if w := strings.Join(r.Warnings, " "); !strings.Contains(w, "zero.js") || !strings.Contains(w, "a.json") {
		t.Fatalf("warnings %q do not name zero.js and a.json", r.Warnings)
	}
	within(t, "stop", 10*time.Second, func() {
		p.watchStop()
	})
	st2, err := p.watchStart()
	if err != nil || st2.Pid == st.Pid {
		t.Fatalf("start after stop: %+v %v", st2, err)
	}
	if left := groupMembers(st.Pid); len(left) > 0 {
		t.Fatalf("the first watcher's group still has %v beside the second", left)
	}
}

// TestWatchLongLine: one output line over 1 MiB stops nothing: the
// rebuilds after it are seen.
func TestWatchLongLine(t *testing.T) {
	script := `build() { mkdir -p dist/chrome; echo "{\"v\":\"$1\"}" > dist/chrome/manifest.json; echo "Finished 'build' after 3 ms"; }
build start
while :; do
  if [ -f trigger ]; then
    t=$(cat trigger); rm trigger
    [ "$t" = long ] && { head -c 1500000 /dev/zero | tr '\0' x; echo; }
    build "$t"
  fi
  sleep 0.02
done
`
	p, ws := scriptPlugin(t, script, map[string]any{})
	if _, err := p.watchStart(); err != nil {
		t.Fatal(err)
	}
	if _, e := waitReady(t, p); e != nil {
		t.Fatal(e)
	}
	for i, what := range []string{"long", "after"} {
		trigger(t, ws, what)
		if r, e := waitReady(t, p); e != nil || r.Seq != int64(i+2) {
			t.Fatalf("rebuild %q: %+v %v", what, r, e)
		}
	}
}

// TestWatchStopKillsSetsid: a child of the watcher that started a session
// of its own does not outlive mm_build_watch_stop.
func TestWatchStopKillsSetsid(t *testing.T) {
	script := `setsid sleep 300 & echo $! > escaped.pid
mkdir -p dist/chrome; echo '{}' > dist/chrome/manifest.json; echo "Finished 'build' after 3 ms"
exec sleep 300
`
	p, ws := scriptPlugin(t, script, map[string]any{})
	if _, err := p.watchStart(); err != nil {
		t.Fatal(err)
	}
	if _, e := waitReady(t, p); e != nil {
		t.Fatal(e)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "escaped.pid"))
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("escaped.pid %q", b)
	}
	p.watchStop()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the watcher's setsid child %d outlived mm_build_watch_stop", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// TestNoDependenciesNoNodeModules: a workspace whose package.json declares
// no dependencies needs no node_modules for mm_build or the watch.
func TestNoDependenciesNoNodeModules(t *testing.T) {
	_, ws := fakeWorkspace(t, `mkdir -p dist/chrome; echo '{}' > dist/chrome/manifest.json; echo "Finished 'build' after 1 ms"; [ "$1" = once ] && exit 0; exec sleep 300`, map[string]any{})
	if err := os.RemoveAll(filepath.Join(ws, "node_modules")); err != nil {
		t.Fatal(err)
	}
	pkg := `{"name":"plain","private":true,"scripts":{"start:test":"node watch.js"},"dependencies":{}}`
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := configured(t, ws, map[string]any{"command": filepath.Join(ws, "bin", "build.sh") + " once", "watchCommand": filepath.Join(ws, "bin", "build.sh")})
	if _, err := p.Build(context.Background(), sdk.BuildRequest{Force: true}, sdk.NopEvents{}); err != nil {
		t.Fatalf("build without node_modules: %v", err)
	}
	if _, err := p.watchStart(); err != nil {
		t.Fatalf("watch start without node_modules: %v", err)
	}
	if _, e := waitReady(t, p); e != nil {
		t.Fatal(e)
	}
	// With a dependency declared, node_modules is needed again.
	pkg = `{"name":"plain","devDependencies":{"gulp":"^4"}}`
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Build(context.Background(), sdk.BuildRequest{Force: true}, sdk.NopEvents{}); code(err) != sdk.CodeDependenciesMissing {
		t.Fatalf("build with a declared dependency and no node_modules: %v", err)
	}
}
