package e2e

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

const account0 = "0x5cfe73b6021e818b776b421b1c4db2474086a7e1"

type a11yNode struct {
	Ref, Role, Name string
	Disabled        *bool
	Path            []string
}

func snapshot(t *testing.T, h *Host) []a11yNode {
	t.Helper()
	var out struct{ Nodes []a11yNode }
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &out)
	return out.Nodes
}

func refsNamed(nodes []a11yNode, role, name string) []string {
	var refs []string
	for _, n := range nodes {
		if n.Role == role && n.Name == name {
			refs = append(refs, n.Ref)
		}
	}
	return refs
}

func readClipboard(t *testing.T, h *Host) string {
	t.Helper()
	var out struct {
		Success bool
		Text    string
	}
	must(t, h.Call("mm_clipboard", map[string]any{"action": "read"})).Decode(t, &out)
	return out.Text
}

type state struct {
	IsLoaded       bool
	CurrentURL     string
	ExtensionID    string
	IsUnlocked     bool
	CurrentScreen  string
	AccountAddress *string
	NetworkName    *string
	ChainID        *int64
	Balance        *string
}

func getState(t *testing.T, h *Host) state {
	t.Helper()
	var out struct{ State state }
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &out)
	return out.State
}

// TestWalletSession drives one default session through the primitives.
func TestWalletSession(t *testing.T) {
	h, ws := walletHost(t)
	res := launch(t, h, map[string]any{"stateMode": "default", "goal": "e2e primitives", "flowTags": []string{"send"}})
	var st state
	b := []byte(jsonOf(res["state"]))
	_ = jsonUnmarshal(b, &st)
	if st.CurrentScreen != "home" || !st.IsUnlocked || st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, account0) {
		t.Fatalf("launch state %+v", st)
	}
	if res["extensionId"] == "" || !strings.Contains(jsonOf(res["prerequisites"]), "unlock") {
		t.Fatalf("launch result %s", jsonOf(res))
	}
	wantCode(t, h.Call("mm_launch", map[string]any{}), "MM_SESSION_ALREADY_RUNNING")

	t.Run("describe and same-name refs", func(t *testing.T) {
		var d struct {
			State   state
			TestIDs struct{ Items []struct{ TestID string } }
			A11y    struct{ Nodes []a11yNode }
		}
		must(t, h.Call("mm_describe_screen", map[string]any{})).Decode(t, &d)
		if d.State.CurrentScreen != "home" || !strings.Contains(jsonOf(d.TestIDs), "account-menu-icon") {
			t.Fatalf("describe: %+v", d.State)
		}
		copies := refsNamed(d.A11y.Nodes, "button", "Copy")
		if len(copies) != 2 {
			t.Fatalf("want two buttons named Copy, got %v in %s", copies, jsonOf(d.A11y.Nodes))
		}
		must(t, h.Call("mm_click", map[string]any{"a11yRef": copies[0]}))
		if got := readClipboard(t, h); !strings.EqualFold(got, account0) {
			t.Fatalf("first Copy put %q on the clipboard", got)
		}
		must(t, h.Call("mm_click", map[string]any{"a11yRef": copies[1]}))
		if got := readClipboard(t, h); !strings.HasPrefix(got, "http://localhost:") {
			t.Fatalf("second Copy put %q on the clipboard", got)
		}
	})

	t.Run("clipboard round trip", func(t *testing.T) {
		must(t, h.Call("mm_clipboard", map[string]any{"action": "write", "text": "hello clipboard"}))
		if got := readClipboard(t, h); got != "hello clipboard" {
			t.Fatalf("clipboard %q", got)
		}
	})

	t.Run("click by testId and selector, navigate", func(t *testing.T) {
		var c struct {
			Clicked bool
			Target  string
			// what changed: the route is set in the click handler itself
			Changes struct{ URLAfter, ScreenBefore, ScreenAfter string }
		}
		must(t, h.Call("mm_click", map[string]any{"testId": "global-menu-settings"})).Decode(t, &c)
		if !c.Clicked || !strings.Contains(c.Target, "global-menu-settings") {
			t.Fatalf("click %+v", c)
		}
		if ch := c.Changes; !strings.HasSuffix(ch.URLAfter, "#settings") || ch.ScreenBefore != "home" || ch.ScreenAfter != "settings" {
			t.Errorf("click changes %+v, want the URL to the settings route, screen home to settings", ch)
		}
		must(t, h.Call("mm_wait_for", map[string]any{"testId": "settings-back"}))
		if s := getState(t, h); s.CurrentScreen != "settings" {
			t.Fatalf("screen %s", s.CurrentScreen)
		}
		must(t, h.Call("mm_click", map[string]any{"selector": "[data-testid=settings-back]"}))
		must(t, h.Call("mm_wait_for", map[string]any{"testId": "account-menu-icon"}))
		must(t, h.Call("mm_navigate", map[string]any{"screen": "settings"}))
		if s := getState(t, h); s.CurrentScreen != "settings" {
			t.Fatalf("after navigate settings: %s", s.CurrentScreen)
		}
		must(t, h.Call("mm_navigate", map[string]any{"screen": "home"}))
		if s := getState(t, h); s.CurrentScreen != "home" {
			t.Fatalf("after navigate home: %s", s.CurrentScreen)
		}
		wantCode(t, h.Call("mm_navigate", map[string]any{"screen": "url"}), "MM_INVALID_INPUT")
	})

	t.Run("stale ref, missing target, wait timeout", func(t *testing.T) {
		nodes := snapshot(t, h)
		settings := refsNamed(nodes, "button", "Settings")
		if len(settings) == 0 {
			t.Fatalf("no Settings button in %s", jsonOf(nodes))
		}
		must(t, h.Call("mm_navigate", map[string]any{"screen": "settings"}))
		env := h.Call("mm_click", map[string]any{"a11yRef": settings[0], "timeoutMs": 1000})
		wantCode(t, env, "MM_TARGET_NOT_FOUND")
		if !strings.Contains(env.Error.Message, "snapshot") {
			t.Fatalf("stale ref message gives no hint: %s", env.Error.Message)
		}
		wantCode(t, h.Call("mm_click", map[string]any{"a11yRef": "e999", "timeoutMs": 500}), "MM_TARGET_NOT_FOUND")
		wantCode(t, h.Call("mm_click", map[string]any{"testId": "no-such-thing", "timeoutMs": 500}), "MM_TARGET_NOT_FOUND")
		start := time.Now()
		wantCode(t, h.Call("mm_wait_for", map[string]any{"testId": "no-such-thing", "timeoutMs": 300}), "MM_WAIT_TIMEOUT")
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("a 300 ms wait took %s", d)
		}
		wantCode(t, h.Call("mm_click", map[string]any{"testId": "a", "selector": "b"}), "MM_INVALID_INPUT")
		wantCode(t, h.Call("mm_click", map[string]any{}), "MM_INVALID_INPUT")
		must(t, h.Call("mm_navigate", map[string]any{"screen": "home"}))
	})

	// screenAfter is the screen the wallet settles on after a click whose
	// handler awaits its background (lock, unlock) before it re-renders.
	type clicked struct {
		Changes struct{ ScreenBefore, ScreenAfter string }
	}
	t.Run("type replaces the value: lock, wrong password, unlock by ref", func(t *testing.T) {
		var c clicked
		must(t, h.Call("mm_click", map[string]any{"testId": "global-menu-lock"})).Decode(t, &c)
		if c.Changes.ScreenBefore != "home" || c.Changes.ScreenAfter != "unlock" {
			t.Errorf("lock click changes %+v, want screen home -> unlock", c.Changes)
		}
		must(t, h.Call("mm_wait_for", map[string]any{"testId": "unlock-password"}))
		must(t, h.Call("mm_type", map[string]any{"selector": "input[type=password]", "text": "wrong password"}))
		must(t, h.Call("mm_click", map[string]any{"testId": "unlock-submit"}))
		must(t, h.Call("mm_wait_for", map[string]any{"testId": "unlock-error", "timeoutMs": 10000}))
		var textbox string
		for _, n := range snapshot(t, h) {
			if n.Role == "textbox" {
				textbox = n.Ref
			}
		}
		if textbox == "" {
			t.Fatal("no textbox on the unlock screen")
		}
		var ty struct {
			Typed      bool
			TextLength int
		}
		must(t, h.Call("mm_type", map[string]any{"a11yRef": textbox, "text": "correct horse battery staple"})).Decode(t, &ty)
		if !ty.Typed || ty.TextLength != 28 {
			t.Fatalf("type %+v", ty)
		}
		c = clicked{}
		must(t, h.Call("mm_click", map[string]any{"testId": "unlock-submit"})).Decode(t, &c)
		if c.Changes.ScreenBefore != "unlock" || c.Changes.ScreenAfter != "home" {
			t.Errorf("unlock click changes %+v, want screen unlock -> home", c.Changes)
		}
		must(t, h.Call("mm_wait_for", map[string]any{"testId": "account-menu-icon", "timeoutMs": 15000}))
	})

	t.Run("screenshots", func(t *testing.T) {
		var shot struct {
			Path          string
			Width, Height int
		}
		env := must(t, h.Call("mm_screenshot", map[string]any{"name": "home-shot", "includeBase64": true}))
		env.Decode(t, &shot)
		dir := filepath.Join(ws, "test-artifacts", "llm-knowledge", env.Meta.SessionID, "screenshots")
		if filepath.Dir(shot.Path) != dir || !shotName("home-shot").MatchString(filepath.Base(shot.Path)) {
			t.Fatalf("path %s, want %s/<timestamp>-home-shot.png", shot.Path, dir)
		}
		f, err := os.Open(shot.Path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != shot.Width || cfg.Height != shot.Height {
			t.Fatalf("png %v %dx%d, stated %dx%d", err, cfg.Width, cfg.Height, shot.Width, shot.Height)
		}
		if len(env.Raw.Content) < 2 {
			t.Fatal("includeBase64 returned no image content")
		}
		if _, ok := env.Raw.Content[1].(mcp.ImageContent); !ok {
			t.Fatalf("second content is %T", env.Raw.Content[1])
		}
		wantCode(t, h.Call("mm_screenshot", map[string]any{"name": "../../evil"}), "MM_INVALID_INPUT")
		if _, err := os.Stat(filepath.Join(ws, "evil.png")); err == nil {
			t.Fatal("traversal wrote a file")
		}
	})

	t.Run("dapp popup, tabs", func(t *testing.T) {
		srv := dappServer(t)
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
		must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
		var n struct {
			Found   bool
			PageURL string
		}
		must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 10000})).Decode(t, &n)
		if !n.Found || !strings.Contains(n.PageURL, "notification.html") {
			t.Fatalf("notification %+v", n)
		}
		// The popup renders its app a moment after its window opened (like
		// MetaMask's React UI): the wait returned only once it had.
		var d struct {
			TestIDs struct {
				Items []struct{ TestID, Text string }
			}
		}
		must(t, h.Call("mm_describe_screen", map[string]any{})).Decode(t, &d)
		if ids := jsonOf(d.TestIDs); !strings.Contains(ids, "page-container-footer-next") || !strings.Contains(ids, "page-container-footer-cancel") {
			t.Fatalf("right after mm_wait_for_notification the popup lists %s", ids)
		}
		// Connect is two steps, as in MetaMask: Next keeps the popup open,
		// Confirm makes the wallet close it (asynchronously).
		var c struct{ PageClosedAfterClick bool }
		must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"})).Decode(t, &c)
		if c.PageClosedAfterClick {
			t.Fatal("Next reported pageClosedAfterClick")
		}
		must(t, h.Call("mm_wait_for", map[string]any{"selector": "[data-testid=page-container-footer-next]:not([disabled])"}))
		if txt := testIDText(t, h, "page-container-footer-next"); txt != "Confirm" {
			t.Fatalf("second connect step shows %q", txt)
		}
		must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"})).Decode(t, &c)
		if !c.PageClosedAfterClick {
			t.Fatal("the popup's confirm did not report pageClosedAfterClick")
		}
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		eventuallyText(t, h, "account", account0)
		// A page's own window.open popup.
		must(t, h.Call("mm_click", map[string]any{"testId": "open-popup"}))
		deadline := time.Now().Add(10 * time.Second)
		for {
			env := h.Call("mm_switch_to_tab", map[string]any{"url": srv.URL + "/popup"})
			if env.OK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("popup never tracked: %+v", env.Error)
			}
			time.Sleep(100 * time.Millisecond)
		}
		must(t, h.Call("mm_click", map[string]any{"testId": "close-me"})).Decode(t, &c)
		if !c.PageClosedAfterClick {
			t.Fatal("window.close() popup: pageClosedAfterClick not set")
		}
		var cl struct {
			Closed    bool
			ClosedURL string
		}
		must(t, h.Call("mm_close_tab", map[string]any{"role": "dapp"})).Decode(t, &cl)
		if !cl.Closed || !strings.HasPrefix(cl.ClosedURL, srv.URL) {
			t.Fatalf("close %+v", cl)
		}
		st := getState(t, h)
		env := h.Call("mm_close_tab", map[string]any{"url": "chrome-extension://" + st.ExtensionID + "/home.html"})
		if env.OK {
			t.Fatal("the extension home page was closed")
		}
		wantCode(t, h.Call("mm_close_tab", map[string]any{"role": "extension"}), "MM_INVALID_INPUT")
	})

	var cl struct{ CleanedUp bool }
	must(t, h.Call("mm_cleanup", map[string]any{})).Decode(t, &cl)
	if !cl.CleanedUp {
		t.Fatal("cleanup did nothing")
	}
	if !eventually(10*time.Second, func() bool { return len(chromeFor(ws)) == 0 }) {
		t.Fatalf("Chrome left after cleanup: %v", chromeFor(ws))
	}
	wantCode(t, h.Call("mm_get_state", map[string]any{}), "MM_NO_ACTIVE_SESSION")
}

// shotName matches a screenshot's file name, <timestamp>-<name>.png.
func shotName(name string) *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-` + regexp.QuoteMeta(name) + `\.png$`)
}

// TestScreenshotsPerSession: two sessions' screenshots of the same name
// keep two files, each in its session's directory of the knowledge store
// and the step record names the file.
func TestScreenshotsPerSession(t *testing.T) {
	h, ws := walletHost(t)
	var paths []string
	for range 2 {
		launch(t, h, map[string]any{"stateMode": "default"})
		var shot struct{ Path string }
		env := must(t, h.Call("mm_screenshot", map[string]any{"name": "same"}))
		env.Decode(t, &shot)
		dir := filepath.Join(ws, "test-artifacts", "llm-knowledge", env.Meta.SessionID, "screenshots")
		if filepath.Dir(shot.Path) != dir || !shotName("same").MatchString(filepath.Base(shot.Path)) {
			t.Fatalf("path %s, want %s/<timestamp>-same.png", shot.Path, dir)
		}
		must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // the screenshot's record is written
		recs, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "steps", "*-mm_screenshot.json"))
		if b, err := readAll(recs); err != nil || !strings.Contains(string(b), fmt.Sprintf("%q", shot.Path)) {
			t.Errorf("the step records %v (%v) do not name %s", recs, err, shot.Path)
		}
		must(t, h.Call("mm_cleanup", map[string]any{}))
		paths = append(paths, shot.Path)
	}
	if paths[0] == paths[1] {
		t.Fatalf("both sessions wrote %s", paths[0])
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("screenshot of a session lost: %v", err)
		}
	}
}

// readAll concatenates the files.
func readAll(paths []string) ([]byte, error) {
	var out []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

func TestHostKilledLeavesNoChrome(t *testing.T) {
	h, ws := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "onboarding"})
	if len(chromeFor(ws)) == 0 {
		t.Fatal("no Chrome found for the session")
	}
	_ = h.Cmd.Process.Signal(syscall.SIGKILL)
	waitExit(t, h.Cmd, 10*time.Second)
	if !eventually(15*time.Second, func() bool { return len(chromeFor(ws)) == 0 }) {
		t.Fatalf("Chrome survived a SIGKILLed host: %v", chromeFor(ws))
	}
}
