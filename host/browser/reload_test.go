package browser

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// extCopy copies the test extension into a directory of its own, which a
// test may edit, and writes files into it.
func extCopy(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ext")
	if err := os.CopyFS(dir, os.DirFS(testExt(t))); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// workerEval evaluates expr in the extension's first service worker, as
// DevTools would: the CDP error and the evaluation's exception.
func workerEval(t *testing.T, s *Chrome, expr string) (*proto.RuntimeExceptionDetails, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ids := s.liveWorkers(ctx)
	if len(ids) == 0 {
		t.Fatal("no service worker")
	}
	a, err := proto.TargetAttachToTarget{TargetID: ids[0], Flatten: true}.Call(s.browser.Context(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var r proto.RuntimeEvaluateResult
	raw, err := s.browser.Call(ctx, string(a.SessionID), "Runtime.evaluate", proto.RuntimeEvaluate{Expression: expr})
	if err == nil {
		if jerr := json.Unmarshal(raw, &r); jerr != nil {
			t.Fatal(jerr)
		}
	}
	return r.ExceptionDetails, err
}

// TestReloadScuttledWorker: the test extension's worker is scuttled
// (chrome.runtime.reload() evaluated in it throws, in exceptionDetails,
// while the CDP call succeeds); ReloadExtension still restarts it, from
// chrome://extensions: a new worker runs, the home page is back, active,
// and no stray tab is left.
func TestReloadScuttledWorker(t *testing.T) {
	s := launchTest(t, func(o *Options) { o.ExtensionPath = extCopy(t, nil) })
	exc, err := workerEval(t, s, `chrome.runtime.reload()`)
	if err != nil || exc == nil || !strings.Contains(exceptionText(exc), "inaccessible under scuttling mode") {
		t.Fatalf("the worker is not scuttled: error %v, exception %+v", err, exc)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	old := s.liveWorkers(ctx)
	r, rerr := s.ReloadExtension(ctx)
	if rerr != nil || !r.Worker || r.By != ByMmcp || r.Page == nil {
		t.Fatalf("reload %+v: %v", r, rerr)
	}
	if len(newOnes(s.liveWorkers(ctx), old)) == 0 {
		t.Fatal("no new service worker after the reload")
	}
	assertNoStrayTabs(t, s)
}

// TestReloadAfterLiveReload: the extension restarted itself (its build's
// live reload, on a file change) before the reload was asked: the
// reload takes that restart (By BySelf) instead of restarting it again,
// and reopens the wallet page.
func TestReloadAfterLiveReload(t *testing.T) {
	bg, err := os.ReadFile(filepath.Join(testExt(t), "background.js"))
	if err != nil {
		t.Fatal(err)
	}
	live := strings.Replace(string(bg), "const LIVE_RELOAD = false;", "const LIVE_RELOAD = true;", 1)
	dir := extCopy(t, map[string]string{"live-reload.txt": "1", "background.js": live})
	s := launchTest(t, func(o *Options) { o.ExtensionPath = dir })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	old := s.liveWorkers(ctx)
	// The rebuild: the worker's script names build 2, then the file that
	// its running build 1 polls says so (the worker reads it whenever it
	// starts polling: no race with its start).
	rebuilt := strings.Replace(live, "const BUILT = '1';", "const BUILT = '2';", 1)
	if err := os.WriteFile(filepath.Join(dir, "background.js"), []byte(rebuilt), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "live-reload.txt"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(s.awaitNewWorkers(ctx, old)) == 0 {
		t.Fatal("the extension did not restart itself")
	}
	r, err := s.ReloadExtension(ctx)
	if err != nil || !r.Worker || r.By != BySelf || r.Page == nil {
		t.Fatalf("reload %+v: %v", r, err)
	}
	if act := s.Tabs().Active; act.Role != RoleExtension {
		t.Fatalf("active tab %+v after the reload", act)
	}
	assertNoStrayTabs(t, s)
}

func assertNoStrayTabs(t *testing.T, s *Chrome) {
	t.Helper()
	for _, tb := range s.Tabs().Tracked {
		if tb.URL == "about:blank" || strings.HasPrefix(tb.URL, "chrome://") {
			t.Fatalf("stray tab after the reload: %+v", s.Tabs().Tracked)
		}
	}
}
