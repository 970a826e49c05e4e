package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// metamaskWorkspace is a workspace whose `yarn start:test` behaves like
// MetaMask's watch build (e2e/testdata/watcher/metamask.js: gulp task
// lines while dist/chrome is empty, labelled sub-builds, quiet gaps longer
// than the default quietMs inside the initial build, the service worker
// written last, a labelled SyntaxError with its dump), building src/ (the
// test wallet's source) into dist/chrome.
func metamaskWorkspace(t testing.TB) string {
	t.Helper()
	ws := t.TempDir()
	addWatcher(t, ws, "metamask.js", "metamask-ws")
	return ws
}

// sameTree lists the files of src that dist lacks or holds with other
// content.
func sameTree(t testing.TB, src, dist string) []string {
	t.Helper()
	var diff []string
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(dist, rel))
		if err != nil || !bytes.Equal(got, want) {
			diff = append(diff, rel)
		}
		return nil
	})
	return diff
}

// TestWatchMetaMaskBuild: on a MetaMask-like watch build, wait_ready
// answers the initial build only once dist/chrome is whole (not at the
// early gulp "Finished" lines nor in the quiet gaps); a session launched
// on it reloads an edit in place; a SyntaxError printed behind the
// sub-build's label answers MM_BUILD_FAILED with the error within seconds,
// and the fix recovers the same session without a relaunch.
func TestWatchMetaMaskBuild(t *testing.T) {
	ws := metamaskWorkspace(t)
	src, dist := filepath.Join(ws, "src"), filepath.Join(ws, "dist", "chrome")
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless", "--settle-timeout", "8s"}})
	t.Cleanup(func() {
		if h.Cmd.ProcessState == nil {
			h.Call("mm_build_watch_stop", map[string]any{})
			h.Call("mm_cleanup", map[string]any{})
		}
	})
	watchers := func() []int { return pidsMatching("metamask.js", ws) }

	must(t, h.Call("mm_build_watch_start", map[string]any{}))
	start := time.Now()
	env := waitReady(t, h)
	if !env.OK {
		t.Fatalf("initial build after %s: %+v (dist/chrome then lacked %v)", time.Since(start).Round(time.Millisecond), env.Error, sameTree(t, src, dist))
	}
	if missing := sameTree(t, src, dist); len(missing) > 0 {
		t.Fatalf("wait_ready answered the initial build after %s while dist/chrome lacked %v", time.Since(start).Round(time.Millisecond), missing)
	}
	var first waitReadyResult
	env.Decode(t, &first)
	if first.Rebuild.Seq != 1 || first.BuildID == "" {
		t.Fatalf("initial build %s", env.Result)
	}
	t.Logf("initial build answered after %s", time.Since(start).Round(time.Millisecond))

	res := launchFree(t, h, map[string]any{})
	sessionID, _ := res["sessionId"].(string)

	// A visible string changes: rebuilt, reloaded in place.
	editHome(t, ws, tabLabel("Tokenz1"))
	env = must(t, waitReady(t, h))
	var got waitReadyResult
	env.Decode(t, &got)
	if !got.Reloaded || got.Screen != "home" || got.Rebuild.Seq != 2 || env.Meta.SessionID != sessionID {
		t.Fatalf("wait_ready after the edit: %s (session %s, was %s)", env.Result, env.Meta.SessionID, sessionID)
	}
	if !describeHas(t, h, "Tokenz1") {
		t.Fatal("the edited string does not show after the reload")
	}

	// A syntax error, printed behind the sub-build's label with a dump.
	editHome(t, ws, func(s string) string { return s + "\nconst re = /unterminated\n" })
	wrote := time.Now()
	bad := waitReady(t, h)
	took := time.Since(wrote)
	wantCode(t, bad, "MM_BUILD_FAILED")
	if !strings.Contains(bad.Error.Message, "scripts:core:test-live:standardEntryPoints: SyntaxError: ") || strings.Contains(bad.Error.Message, "field3") {
		t.Fatalf("broken build answered %q: want the labelled SyntaxError's first lines", bad.Error.Message)
	}
	if took > 5*time.Second {
		t.Fatalf("MM_BUILD_FAILED %s after the edit, want within 5 s", took)
	}
	t.Logf("labelled SyntaxError answered %s after the edit", took.Round(time.Millisecond))

	// The fix recovers the same session.
	editHome(t, ws, func(s string) string {
		return tabLabel("Tokenz2")(strings.TrimSuffix(s, "\nconst re = /unterminated\n"))
	})
	env = must(t, waitReady(t, h))
	env.Decode(t, &got)
	if !got.Reloaded || got.Screen != "home" || env.Meta.SessionID != sessionID {
		t.Fatalf("recovery: %s (session %s, was %s)", env.Result, env.Meta.SessionID, sessionID)
	}
	if !describeHas(t, h, "Tokenz2") {
		t.Fatal("the recovered wallet does not show the new string")
	}

	must(t, h.Call("mm_build_watch_stop", map[string]any{}))
	if !eventually(5*time.Second, func() bool { return len(watchers()) == 0 }) {
		t.Fatalf("watcher processes %v after mm_build_watch_stop", watchers())
	}
}

// TestWatchUIEditReloadsPagesOnly: on a MetaMask-like watch build, a
// rebuild that changed only files the wallet's pages load (home.js) loads
// the pages again and leaves the background running, still unlocked: no
// restart and no unlock (on a real MetaMask build those are the 12-15 s of
// an edit's reload), the same session, the new text on screen. A rebuild
// that changed the service worker still restarts the background and
// unlocks it again.
func TestWatchUIEditReloadsPagesOnly(t *testing.T) {
	ws := metamaskWorkspace(t)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless", "--settle-timeout", "8s"}})
	t.Cleanup(func() {
		if h.Cmd.ProcessState == nil {
			h.Call("mm_build_watch_stop", map[string]any{})
			h.Call("mm_cleanup", map[string]any{})
		}
	})
	must(t, h.Call("mm_build_watch_start", map[string]any{}))
	must(t, waitReady(t, h))
	res := launchFree(t, h, map[string]any{})
	sessionID, _ := res["sessionId"].(string)

	type reloadAnswer struct {
		Reloaded bool   `json:"reloaded"`
		Screen   string `json:"screen"`
		Reload   struct {
			Unlocked            bool `json:"unlocked"`
			IsUnlocked          bool `json:"isUnlocked"`
			PagesOnly           bool `json:"pagesOnly"`
			BackgroundRestarted bool `json:"backgroundRestarted"`
		} `json:"reload"`
	}
	editHome(t, ws, tabLabel("Tokenz1"))
	env := must(t, waitReady(t, h))
	var got reloadAnswer
	env.Decode(t, &got)
	if !got.Reloaded || got.Screen != "home" || env.Meta.SessionID != sessionID {
		t.Fatalf("wait_ready after a UI edit: %s (session %s, was %s)", env.Result, env.Meta.SessionID, sessionID)
	}
	if !got.Reload.PagesOnly || got.Reload.BackgroundRestarted || got.Reload.Unlocked || !got.Reload.IsUnlocked {
		t.Fatalf("a UI-only rebuild restarted the background or unlocked again: %s", env.Result)
	}
	if !describeHas(t, h, "Tokenz1") {
		t.Fatal("the edited string does not show after the pages' reload")
	}

	// The service worker changed: the background restarts.
	worker := filepath.Join(ws, "src", "scripts", "app-init.js")
	b, err := os.ReadFile(worker)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(worker, append(b, "\n// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	env = must(t, waitReady(t, h))
	got = reloadAnswer{}
	env.Decode(t, &got)
	if !got.Reloaded || got.Screen != "home" || env.Meta.SessionID != sessionID {
		t.Fatalf("wait_ready after a service worker edit: %s", env.Result)
	}
	if got.Reload.PagesOnly || !got.Reload.BackgroundRestarted || !got.Reload.Unlocked {
		t.Fatalf("a service worker rebuild did not restart the background: %s", env.Result)
	}
}
