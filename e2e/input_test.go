package e2e

import (
	"testing"
)

// TestInputCheckedBeforeSession: invalid input answers MM_INVALID_INPUT
// whatever the session's state, here with no session at all; the same
// tools with valid input answer MM_NO_ACTIVE_SESSION.
func TestInputCheckedBeforeSession(t *testing.T) {
	h := startHost(t, HostOptions{Repo: walletWorkspace(t), Args: []string{"--headless"}})
	for _, c := range []struct {
		tool          string
		invalid, good map[string]any
	}{
		{"mm_clipboard", map[string]any{"action": "write"}, map[string]any{"action": "read"}},
		{"mm_navigate", map[string]any{"screen": "home", "newTab": true}, map[string]any{"screen": "home"}},
		{"mm_navigate", map[string]any{"screen": "url", "url": "not a url"}, map[string]any{"screen": "url", "url": "http://127.0.0.1:1/"}},
		{"mm_screenshot", map[string]any{"name": "../escape"}, map[string]any{"name": "fine"}},
		{"mm_switch_to_tab", map[string]any{}, map[string]any{"role": "dapp"}},
		{"mm_close_tab", map[string]any{}, map[string]any{"role": "dapp"}},
		{"mm_click", map[string]any{"testId": "a", "selector": "#b"}, map[string]any{"testId": "a"}},
		{"mm_type", map[string]any{"text": "x"}, map[string]any{"testId": "a", "text": "x"}},
		{"mm_wait_for", map[string]any{"a11yRef": "e1", "testId": "a"}, map[string]any{"a11yRef": "e1"}},
	} {
		env := h.Call(c.tool, c.invalid)
		if env.OK || env.Error.Code != "MM_INVALID_INPUT" {
			t.Errorf("%s %v with no session: %+v, want MM_INVALID_INPUT", c.tool, c.invalid, env.Error)
		}
		env = h.Call(c.tool, c.good)
		if env.OK || env.Error.Code != "MM_NO_ACTIVE_SESSION" {
			t.Errorf("%s %v with no session: %+v, want MM_NO_ACTIVE_SESSION", c.tool, c.good, env.Error)
		}
	}
	// In a batch too.
	var b batchResult
	must(t, h.Call("mm_run_steps", map[string]any{"steps": []map[string]any{{"tool": "mm_clipboard", "args": map[string]any{"action": "write"}}}})).Decode(t, &b)
	if len(b.Steps) != 1 || b.Steps[0].Error == nil || b.Steps[0].Error.Code != "MM_INVALID_INPUT" {
		t.Fatalf("batch step: %+v", b.Steps)
	}
}
