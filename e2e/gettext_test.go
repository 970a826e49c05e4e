package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestGetTextAfterConnect: after a connect, mm_get_text of the test dapp's
// #accounts answers the connected address as text (no screenshot), the
// call is a step of the session's record, and a call without exactly one
// target or with maxChars out of bounds is refused.
func TestGetTextAfterConnect(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	srv := connectTestDapp(t, h)

	var got struct {
		Text      string
		Target    string
		Truncated bool
	}
	if !eventually(10*time.Second, func() bool {
		must(t, h.Call("mm_get_text", map[string]any{"selector": "#accounts"})).Decode(t, &got)
		return strings.Contains(got.Text, account0)
	}) {
		t.Fatalf("mm_get_text #accounts = %+v, want %s", got, account0)
	}
	if got.Target != "#accounts" || got.Truncated {
		t.Errorf("result %+v", got)
	}
	must(t, h.Call("mm_get_text", map[string]any{"selector": "#accounts", "maxChars": 6})).Decode(t, &got)
	if got.Text != account0[:6] || !got.Truncated {
		t.Errorf("maxChars 6: %+v", got)
	}

	wantCode(t, h.Call("mm_get_text", map[string]any{}), "MM_INVALID_INPUT")
	wantCode(t, h.Call("mm_get_text", map[string]any{"testId": "accounts", "selector": "#accounts"}), "MM_INVALID_INPUT")
	wantCode(t, h.Call("mm_get_text", map[string]any{"selector": "#accounts", "maxChars": 0}), "MM_INVALID_INPUT")
	wantCode(t, h.Call("mm_get_text", map[string]any{"selector": "#accounts", "maxChars": 1000000}), "MM_INVALID_INPUT")

	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // records are written off the session lock; this waits for them
	n := 0
	for _, r := range records(t, ws, sid) {
		if r.Tool.Name == "mm_get_text" && r.Outcome.OK {
			n++
			if u, _ := r.Observation.State["currentUrl"].(string); !strings.HasPrefix(u, srv.URL) {
				t.Errorf("mm_get_text step recorded without the state: %v", r.Observation.State)
			}
		}
	}
	if n < 2 {
		t.Errorf("%d successful mm_get_text steps recorded, want at least 2", n)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
