package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// TestChromeKilledMidCall kills Chrome while a call drives it (a wait, a
// click and a typing for a testid that never appears, a navigation to a
// page that never loads, a screenshot of a page whose renderer is busy,
// a batch's wait): the call answers MM_BROWSER_CLOSED within 2 s of the
// kill, the host log has an error line for it, and the step record keeps
// MM_BROWSER_CLOSED.
func TestChromeKilledMidCall(t *testing.T) {
	hang := make(chan struct{})
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-hang // never answers while the test runs
	}))
	t.Cleanup(func() { close(hang); never.Close() })
	dapp := dappServer(t)

	wait := map[string]any{"testId": "never-there", "timeoutMs": 30000}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		// before readies the page for the call (nil: nothing).
		before func(t *testing.T, h *Host, ws string)
		// record is the tool whose step record keeps the code.
		record string
	}{
		{name: "wait", tool: "mm_wait_for", args: wait},
		{name: "click", tool: "mm_click", args: wait},
		{name: "type", tool: "mm_type", args: map[string]any{"testId": "never-there", "text": "abc", "timeoutMs": 30000}},
		{name: "navigate", tool: "mm_navigate", args: map[string]any{"screen": "url", "url": never.URL}},
		{name: "screenshot", tool: "mm_screenshot", args: map[string]any{"name": "busy"},
			before: func(t *testing.T, h *Host, ws string) {
				must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": dapp.URL}))
				// The page's renderer spins from its next task on: no
				// frame can be captured any more.
				page := pageAt(t, bareCDP(t, ws), dapp.URL)
				if _, err := (proto.RuntimeEvaluate{Expression: `setTimeout(() => { for (;;) {} }, 0)`}).Call(page); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "run_steps", tool: "mm_run_steps", args: map[string]any{"steps": []map[string]any{
			{"tool": "mm_wait_for", "args": wait},
		}}, record: "mm_wait_for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ws := walletHost(t, "--log-level", "trace")
			res := launchFree(t, h, map[string]any{})
			sid := fmt.Sprint(res["sessionId"])
			if tc.before != nil {
				tc.before(t, h, ws)
			}
			inFlight := "running: tool=" + tc.tool
			if tc.record != "" {
				inFlight = "running: tool=" + tc.record
			}
			seen := strings.Count(h.Stderr.String(), inFlight)

			answer := make(chan Envelope, 1)
			go func() { answer <- h.Call(tc.tool, tc.args) }()
			if !eventually(10*time.Second, func() bool { return strings.Count(h.Stderr.String(), inFlight) > seen }) {
				t.Fatalf("%s never started:\n%s", tc.tool, tail(h.Stderr.String(), 20))
			}
			killAll(t, "chrome", chromeFor(ws))
			killed := time.Now()

			var env Envelope
			select {
			case env = <-answer:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s did not answer within 10 s of the kill", tc.tool)
			}
			took := time.Since(killed)
			code := ""
			if tc.tool == "mm_run_steps" {
				var b batchResult
				must(t, env).Decode(t, &b)
				if len(b.Steps) != 1 || b.Steps[0].Error == nil {
					t.Fatalf("batch %+v", b)
				}
				code = b.Steps[0].Error.Code
			} else if env.Error != nil {
				code = env.Error.Code
			}
			if code != "MM_BROWSER_CLOSED" || took > 2*time.Second {
				t.Fatalf("%s answered %s %s %d ms after the kill, want MM_BROWSER_CLOSED within 2 s\nhost log:\n%s", tc.tool, env.Result, code, took.Milliseconds(), tail(h.Stderr.String(), 20))
			}
			if env.Error != nil && !strings.Contains(env.Error.Message, "mm_launch") {
				t.Fatalf("no way forward in %q", env.Error.Message)
			}
			t.Logf("%s answered MM_BROWSER_CLOSED %d ms after the kill", tc.tool, took.Milliseconds())
			// The host's stderr may reach the test after its answer; a
			// batch's line names the step that failed.
			logged := tc.tool
			if tc.record != "" {
				logged = tc.record
			}
			if !eventually(2*time.Second, func() bool {
				return strings.Contains(h.Stderr.String(), "[ERROR] mmcp: a call failed: its session's Chrome went away: tool="+logged)
			}) {
				t.Fatalf("no error line in the host log:\n%s", tail(h.Stderr.String(), 20))
			}

			// The step record keeps the code. Records are written off the
			// session lock; a knowledge call waits for the writes.
			must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1}))
			want := tc.tool
			if tc.record != "" {
				want = tc.record
			}
			var got string
			for _, r := range readRecords[struct {
				Tool    struct{ Name string }
				Outcome struct{ Error *struct{ Code string } }
			}](t, ws, sid) {
				if r.Tool.Name == want && r.Outcome.Error != nil {
					got = r.Outcome.Error.Code
				}
			}
			if got != "MM_BROWSER_CLOSED" {
				t.Fatalf("step record of %s keeps %q", want, got)
			}
		})
	}
}
