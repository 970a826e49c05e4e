package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSpecDetails: slowMo delays each input action, mm_clipboard write
// needs text, calls before mm_launch leave no made-up session behind, and
// mm_cleanup is written as a step record.
func TestSpecDetails(t *testing.T) {
	h, ws := walletHost(t)
	knowledge := filepath.Join(ws, "test-artifacts", "llm-knowledge")

	// Before any launch: failing calls, recorded under no session.
	wantCode(t, h.Call("mm_click", map[string]any{"testId": "x"}), "MM_NO_ACTIVE_SESSION")
	wantCode(t, h.Call("mm_get_state", map[string]any{}), "MM_NO_ACTIVE_SESSION")
	var none struct{ Sessions []struct{ SessionID string } }
	must(t, h.Call("mm_knowledge_sessions", map[string]any{})).Decode(t, &none)
	if len(none.Sessions) != 0 {
		t.Fatalf("sessions before any launch: %+v", none.Sessions)
	}

	res := launch(t, h, map[string]any{"stateMode": "onboarding", "slowMo": 250})
	sid := res["sessionId"].(string)
	entries, _ := os.ReadDir(knowledge)
	for _, e := range entries {
		if e.Name() != sid {
			t.Errorf("a session directory %s besides the launched %s", e.Name(), sid)
		}
	}

	wantCode(t, h.Call("mm_clipboard", map[string]any{"action": "write"}), "MM_INVALID_INPUT")
	must(t, h.Call("mm_clipboard", map[string]any{"action": "write", "text": "kept"}))
	if got := readClipboard(t, h); got != "kept" {
		t.Fatalf("a refused write changed the clipboard, or the write failed: %q", got)
	}

	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": growingPage(t)}))
	click := must(t, h.Call("mm_click", map[string]any{"selector": "#insert"}))
	if click.Meta.DurationMs < 500 {
		t.Errorf("a click (two input events) with slowMo 250 took %d ms", click.Meta.DurationMs)
	}

	// mm_describe_screen's screenshot: null unless asked for, then spec
	// 000's shape with base64 null unless asked for too.
	var desc struct{ Screenshot json.RawMessage }
	must(t, h.Call("mm_describe_screen", map[string]any{})).Decode(t, &desc)
	if string(desc.Screenshot) != "null" {
		t.Fatalf("screenshot %s, want null", desc.Screenshot)
	}
	must(t, h.Call("mm_describe_screen", map[string]any{"includeScreenshot": true})).Decode(t, &desc)
	var shot map[string]any
	if err := json.Unmarshal(desc.Screenshot, &shot); err != nil || len(shot) != 4 || shot["base64"] != nil || shot["path"] == "" || shot["width"] == nil || shot["height"] == nil {
		t.Fatalf("screenshot %s, want path, width, height and base64 null", desc.Screenshot)
	}
	if _, ok := shot["base64"]; !ok {
		t.Fatalf("screenshot %s has no base64 key", desc.Screenshot)
	}

	must(t, h.Call("mm_cleanup", map[string]any{}))
	var after struct{ Sessions []struct{ SessionID string } }
	must(t, h.Call("mm_knowledge_sessions", map[string]any{})).Decode(t, &after)
	if len(after.Sessions) != 1 || after.Sessions[0].SessionID != sid {
		t.Fatalf("sessions after cleanup: %+v, want only %s", after.Sessions, sid)
	}
	if _, err := os.Stat(filepath.Join(knowledge, sid, "session.json")); err != nil {
		t.Fatalf("the one session has no session.json: %v", err)
	}
	// mm_cleanup is the session's last step record.
	recs := records(t, ws, sid)
	if last := recs[len(recs)-1]; last.Tool.Name != "mm_cleanup" || !last.Outcome.OK {
		t.Fatalf("last step record %s (ok %v), want mm_cleanup", last.Tool.Name, last.Outcome.OK)
	}
}
