package e2e

import (
	"testing"
	"time"
)

// TestCancellation, over MCP cancellation (notifications/cancelled):
// mm_knowledge_sessions answers in under 100 ms while a launch runs; the
// cancelled launch, a cancelled mm_wait_for and a cancelled mm_click
// queued behind it each answer MM_CANCELLED; the same click right after
// succeeds.
func TestCancellation(t *testing.T) {
	ws := walletWorkspace(t)
	h := startRawHost(t, "--repo", ws, "--headless", "--log-level", "trace")

	// A launch, cancelled once it has started; while it runs, a knowledge
	// call does not wait for it.
	h.Call(1, "mm_launch", launchArgs(t))
	h.Progressed(1)
	start := time.Now()
	h.Call(2, "mm_knowledge_sessions", map[string]any{})
	a := h.Answer(2)
	if took := a.at.Sub(start); took > 100*time.Millisecond || h.Answered(1) {
		t.Fatalf("mm_knowledge_sessions took %s (launch answered first: %v)", took, h.Answered(1))
	} else {
		t.Logf("mm_knowledge_sessions during a launch: %s", took)
	}
	h.Cancel(1)
	if env := h.Envelope(1); code(env) != "MM_CANCELLED" {
		t.Fatalf("cancelled launch: %v", env)
	}

	// A real session.
	id := 10
	h.Call(id, "mm_launch", launchArgs(t))
	if env := h.Envelope(id); env["ok"] != true {
		t.Fatalf("launch: %v", env)
	}

	// A wait that would last a minute, and a click queued behind it.
	h.Call(20, "mm_wait_for", map[string]any{"testId": "never-there", "timeoutMs": 60000})
	h.Logged("running", "tool=mm_wait_for")
	h.Call(21, "mm_click", map[string]any{"testId": "global-menu-settings"})
	h.Logged("waiting for the session lock", "tool=mm_click")
	h.Cancel(21)
	if env := h.Envelope(21); code(env) != "MM_CANCELLED" {
		t.Fatalf("cancelled queued click: %v", env)
	}
	if h.Answered(20) {
		t.Fatal("the wait ended with the click")
	}
	h.Cancel(20)
	if env := h.Envelope(20); code(env) != "MM_CANCELLED" {
		t.Fatalf("cancelled wait: %v", env)
	}
	h.Call(22, "mm_click", map[string]any{"testId": "global-menu-settings"})
	if env := h.Envelope(22); env["ok"] != true {
		t.Fatalf("the same click after: %v", env)
	}
	h.Call(23, "mm_cleanup", map[string]any{})
	h.Envelope(23)
}
