package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/testwallet"
)

// watchWorkspace is a workspace whose `yarn start:test` is a real watch
// build of the test wallet: e2e/testdata/watcher/watch.js copies src/ (the
// test wallet's source) into dist/chrome at start and on every change.
func watchWorkspace(t testing.TB) string {
	t.Helper()
	ws := walletWorkspace(t)
	addWatcher(t, ws, "watch.js", "watch-ws")
	return ws
}

// addWatcher makes ws a workspace whose `yarn start:test` runs the test
// watcher e2e/testdata/watcher/<script> over src/ (the test wallet's
// source) into dist/chrome.
func addWatcher(t testing.TB, ws, script, pkgName string) {
	t.Helper()
	if err := testwallet.WriteTo(filepath.Join(ws, "src")); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(repoRoot(), "e2e", "testdata", "watcher", script))
	if err != nil {
		t.Fatal(err)
	}
	// The workspace's path on the command line names this test's watcher
	// among every process of the machine.
	pkg := `{"name":"` + pkgName + `","private":true,"scripts":{"start:test":"node ` + script + ` ` + ws + `"}}`
	for name, b := range map[string][]byte{script: body, "package.json": []byte(pkg)} {
		if err := os.WriteFile(filepath.Join(ws, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// watchers lists the processes of ws's watch build.
func watchers(ws string) []int { return pidsMatching("watch.js", ws) }

// homeJS is the test wallet's home screen source in ws; edit replaces
// old with new in it (the agent's edit).
func editHome(t testing.TB, ws string, edit func(string) string) {
	t.Helper()
	p := filepath.Join(ws, "src", "scripts", "home.js")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tabLabel renames the home screen's Tokens tab: a visible string.
func tabLabel(label string) func(string) string {
	return func(src string) string {
		out := strings.Replace(src, `'Tokens'`, `'`+label+`'`, 1)
		for _, old := range []string{"Tokenz1", "Tokenz2", "Tokenz3"} {
			out = strings.Replace(out, `'`+old+`'`, `'`+label+`'`, 1)
		}
		return out
	}
}

type waitReadyResult struct {
	Reloaded bool   `json:"reloaded"`
	BuildMs  int64  `json:"buildMs"`
	ReloadMs int64  `json:"reloadMs"`
	Screen   string `json:"screen"`
	BuildID  string `json:"buildId"`
	Rebuild  struct {
		Seq int64 `json:"seq"`
	} `json:"rebuild"`
	Reload struct {
		Unlocked   bool `json:"unlocked"`
		IsUnlocked bool `json:"isUnlocked"`
		// PagesOnly: the rebuild changed only what the pages load.
		PagesOnly bool `json:"pagesOnly"`
	} `json:"reload"`
}

func waitReady(t testing.TB, h *Host) Envelope {
	t.Helper()
	return h.CallCtx(context.Background(), "mm_build_watch_wait_ready", map[string]any{"timeoutMs": 30000}, "watch-"+strconv.FormatInt(time.Now().UnixNano(), 10))
}

func describeHas(t testing.TB, h *Host, text string) bool {
	t.Helper()
	env := must(t, h.Call("mm_describe_screen", map[string]any{}))
	return strings.Contains(string(env.Result), text)
}

// TestWatchReloadInPlace: launch on the workspace's build, seed a
// contract, open a dapp tab; an edit to the wallet's source is rebuilt by
// the real watcher and reloaded into the running Chrome: the new string
// shows, and the session, the chain and the dapp tab are the ones from
// before. A broken build answers the watcher's error, a broken wallet
// MM_RELOAD_FAILED with its console errors, and the next good edit
// recovers without a relaunch.
func TestWatchReloadInPlace(t *testing.T) {
	ws := watchWorkspace(t)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless", "--settle-timeout", "8s"}})
	t.Cleanup(func() {
		if h.Cmd.ProcessState == nil {
			h.Call("mm_build_watch_stop", map[string]any{})
			h.Call("mm_cleanup", map[string]any{})
		}
	})

	var st struct {
		Running bool
		State   string
		Pid     int
	}
	must(t, h.Call("mm_build_watch_start", map[string]any{})).Decode(t, &st)
	if !st.Running || st.Pid == 0 {
		t.Fatalf("watch start %+v", st)
	}
	var first waitReadyResult
	must(t, waitReady(t, h)).Decode(t, &first)
	if first.Rebuild.Seq != 1 || first.Reloaded || first.BuildID == "" {
		t.Fatalf("initial build %+v: want seq 1, no reload (no session yet)", first)
	}

	res := launchFree(t, h, map[string]any{"seedContracts": []string{"hst"}, "ports": map[string]any{"anvil": testutil.FreePort(t)}})
	sessionID, _ := res["sessionId"].(string)
	url := chainURL(t, h)
	var addr struct{ ContractAddress *string }
	must(t, h.Call("mm_get_contract_address", map[string]any{"contractName": "hst"})).Decode(t, &addr)
	if addr.ContractAddress == nil {
		t.Fatal("hst not deployed")
	}
	dapp := dappServer(t)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": dapp.URL}))
	if describeHas(t, h, "Tokenz1") {
		t.Fatal("the new string shows before the edit")
	}

	// A visible string changes in the wallet's source.
	editHome(t, ws, tabLabel("Tokenz1"))
	env := must(t, waitReady(t, h))
	var got waitReadyResult
	env.Decode(t, &got)
	// home.js is the page's: only the pages load again, the background
	// stays unlocked.
	if !got.Reloaded || got.Screen != "home" || !got.Reload.IsUnlocked || !got.Reload.PagesOnly || got.Reload.Unlocked || got.BuildID == first.BuildID {
		t.Fatalf("wait_ready after the edit: %s", env.Result)
	}
	t.Logf("edit -> reloaded screen: build %d ms, reload %d ms", got.BuildMs, got.ReloadMs)
	if env.Meta.SessionID != sessionID {
		t.Fatalf("session %s after the reload, was %s", env.Meta.SessionID, sessionID)
	}
	if !describeHas(t, h, "Tokenz1") {
		t.Fatal("mm_describe_screen does not show the edited string after the reload")
	}
	hasCode(t, url, *addr.ContractAddress)
	var state struct {
		Tabs struct {
			Tracked []struct{ Role, URL string }
		}
	}
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &state)
	dappOpen := false
	for _, tb := range state.Tabs.Tracked {
		dappOpen = dappOpen || (tb.Role == "dapp" && strings.HasPrefix(tb.URL, dapp.URL))
	}
	if !dappOpen {
		t.Fatalf("the dapp tab is gone after the reload: %+v", state.Tabs.Tracked)
	}
	if n := len(progressOf(h, "watch-")); n == 0 {
		t.Log("no progress notification (the rebuild was quicker than one progress tick)")
	}

	// A change that breaks the build: the watcher's error, nothing reloaded.
	editHome(t, ws, func(s string) string { return s + "\nfunction broken( {\n" })
	bad := waitReady(t, h)
	wantCode(t, bad, "MM_BUILD_FAILED")
	if !strings.Contains(bad.Error.Message, "SyntaxError") {
		t.Fatalf("broken build answered %q, want the watcher's SyntaxError", bad.Error.Message)
	}

	// A change that builds but breaks the wallet.
	editHome(t, ws, func(s string) string {
		s = strings.TrimSuffix(s, "\nfunction broken( {\n")
		return "throw new Error('broken-wallet-42');\n" + s
	})
	start := time.Now()
	broken := waitReady(t, h)
	wantCode(t, broken, "MM_RELOAD_FAILED")
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("MM_RELOAD_FAILED after %s, past the 8s settle bound", took)
	}
	if errs := jsonOf(broken.Error.Details["consoleErrors"]); !strings.Contains(errs, "broken-wallet-42") {
		t.Fatalf("console errors %s lack the wallet's error", errs)
	}
	if shot, _ := broken.Error.Details["screenshot"].(string); shot == "" {
		t.Fatal("MM_RELOAD_FAILED without a screenshot")
	} else if _, err := os.Stat(shot); err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}

	// The next good change recovers the same session.
	editHome(t, ws, func(s string) string {
		return tabLabel("Tokenz2")(strings.TrimPrefix(s, "throw new Error('broken-wallet-42');\n"))
	})
	env = must(t, waitReady(t, h))
	env.Decode(t, &got)
	if !got.Reloaded || got.Screen != "home" || env.Meta.SessionID != sessionID {
		t.Fatalf("recovery: %s (session %s, was %s)", env.Result, env.Meta.SessionID, sessionID)
	}
	if !describeHas(t, h, "Tokenz2") {
		t.Fatal("the recovered wallet does not show the new string")
	}
	hasCode(t, url, *addr.ContractAddress)

	// mm_reload_extension on its own: same session, still unlocked.
	var rr struct {
		Screen, BuildID string
		IsUnlocked      bool
	}
	must(t, h.Call("mm_reload_extension", map[string]any{})).Decode(t, &rr)
	if rr.Screen != "home" || !rr.IsUnlocked || rr.BuildID != got.BuildID {
		t.Fatalf("mm_reload_extension %+v, build %s", rr, got.BuildID)
	}

	must(t, h.Call("mm_build_watch_stop", map[string]any{}))
	if !eventually(5*time.Second, func() bool { return len(watchers(ws)) == 0 }) {
		t.Fatalf("watcher processes %v after mm_build_watch_stop", watchers(ws))
	}
}

// progressOf lists the progress notifications whose token starts with
// prefix.
func progressOf(h *Host, prefix string) []string {
	var out []string
	for _, n := range h.Progress() {
		b, _ := json.Marshal(n.Params)
		if strings.Contains(string(b), `"progressToken":"`+prefix) {
			out = append(out, string(b))
		}
	}
	return out
}

// TestWatchDiesWithHost: a host killed outright, or its build plugin,
// leaves no watcher behind.
func TestWatchDiesWithHost(t *testing.T) {
	for _, kill := range []string{"host", "plugin"} {
		t.Run(kill, func(t *testing.T) {
			ws := watchWorkspace(t)
			h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
			must(t, h.Call("mm_build_watch_start", map[string]any{}))
			must(t, waitReady(t, h))
			if len(watchers(ws)) == 0 {
				t.Fatal("no watcher process found while the watch runs")
			}
			switch kill {
			case "host":
				_ = h.Cmd.Process.Signal(syscall.SIGKILL)
				_ = h.Cmd.Wait()
			case "plugin":
				pids := childrenOf(h.Cmd.Process.Pid, "mmcp-plugin-build")
				if len(pids) != 1 {
					t.Fatalf("build plugin processes of the host: %v", pids)
				}
				_ = syscall.Kill(pids[0], syscall.SIGKILL)
			}
			if !eventually(10*time.Second, func() bool { return len(watchers(ws)) == 0 }) {
				t.Fatalf("watcher processes %v left after the %s was killed", watchers(ws), kill)
			}
		})
	}
}
