package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

type stepRecord struct {
	Tool struct {
		Name string `json:"name"`
	} `json:"tool"`
	Outcome struct {
		OK bool `json:"ok"`
	} `json:"outcome"`
	Observation struct {
		State   map[string]any   `json:"state"`
		TestIDs []map[string]any `json:"testIds"`
		A11y    struct {
			Nodes []map[string]any `json:"nodes"`
		} `json:"a11y"`
	} `json:"observation"`
}

// records reads a session's step records in order.
func records(t *testing.T, ws, sessionID string) []stepRecord {
	t.Helper()
	return readRecords[stepRecord](t, ws, sessionID)
}

// readRecords reads a session's step records in order, each decoded into
// the shape a test needs.
func readRecords[R any](t *testing.T, ws, sessionID string) []R {
	t.Helper()
	dir := filepath.Join(ws, "test-artifacts", "llm-knowledge", sessionID, "steps")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []R
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		var r R
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out = append(out, r)
	}
	return out
}

type batchResult struct {
	Steps []struct {
		Tool  string
		OK    bool
		Error *struct{ Code, Message string }
		Meta  struct{ DurationMs int64 }
	}
	Summary struct {
		OK                       bool
		Total, Succeeded, Failed int
		DurationMs               int64
	}
}

func runSteps(t *testing.T, h *Host, mode string, stop bool, steps []map[string]any) batchResult {
	t.Helper()
	var out batchResult
	must(t, h.Call("mm_run_steps", map[string]any{"includeObservations": mode, "stopOnError": stop, "steps": steps})).Decode(t, &out)
	return out
}

func clicks(n int) []map[string]any {
	var s []map[string]any
	for i := 0; i < n; i++ {
		s = append(s, map[string]any{"tool": "mm_click", "args": map[string]any{"testId": "counter"}})
	}
	return s
}

// TestBatchObservationModes runs a batch of 16 steps (15 counter clicks
// and one failing wait) in each mode, then reads the step records on disk.
func TestBatchObservationModes(t *testing.T) {
	h, ws := walletHost(t)
	res := launch(t, h, map[string]any{"stateMode": "default"})
	sid := res["sessionId"].(string)
	srv := dappServer(t)
	for _, mode := range []string{"all", "none", "failures"} {
		t.Run(mode, func(t *testing.T) {
			must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
			must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // the navigate's record is written
			before := len(records(t, ws, sid))
			steps := append(clicks(15), map[string]any{"tool": "mm_wait_for", "args": map[string]any{"testId": "never-there", "timeoutMs": 1000}})
			out := runSteps(t, h, mode, false, steps)
			if out.Summary.Total != 16 || out.Summary.Succeeded != 15 || out.Summary.Failed != 1 || out.Summary.OK {
				t.Fatalf("summary %+v", out.Summary)
			}
			if d := out.Steps[15].Meta.DurationMs; d < 1000 || d >= 2000 {
				t.Fatalf("the failing wait took %d ms: one timeout is 1000 ms", d)
			}
			if got := testIDText(t, h, "count"); got != "15" {
				t.Fatalf("counter %s after 15 clicks: a step ran twice or not at all", got)
			}
			recs := records(t, ws, sid)[before:]
			var batch []stepRecord
			for _, r := range recs {
				if r.Tool.Name == "mm_click" || r.Tool.Name == "mm_wait_for" {
					batch = append(batch, r)
				}
			}
			if len(batch) != 16 {
				t.Fatalf("%d records for 16 steps", len(batch))
			}
			for i, r := range batch {
				full := len(r.Observation.TestIDs) > 0 && len(r.Observation.A11y.Nodes) > 0
				want := mode == "all" || (mode == "failures" && i == 15)
				if full != want {
					t.Fatalf("step %d (%s ok=%v) full observation %v, want %v", i, r.Tool.Name, r.Outcome.OK, full, want)
				}
				if r.Observation.State["currentUrl"] == nil {
					t.Fatalf("step %d recorded no state", i)
				}
			}
			must(t, h.Call("mm_close_tab", map[string]any{"role": "dapp"}))
		})
	}

	t.Run("bad inner step", func(t *testing.T) {
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
		steps := []map[string]any{
			{"tool": "mm_click", "args": map[string]any{"testId": "counter"}},
			{"tool": "mm_click", "args": map[string]any{"testId": "counter", "bogus": 1}},
			{"tool": "mm_nope"},
			{"tool": "mm_click", "args": map[string]any{"testId": "counter"}},
		}
		out := runSteps(t, h, "none", false, steps)
		if out.Summary.Succeeded != 2 || out.Summary.Failed != 2 || out.Steps[1].Error.Code != "MM_INVALID_INPUT" || out.Steps[2].Error.Code != "MM_INVALID_INPUT" {
			t.Fatalf("batch %+v", out)
		}
		if !strings.Contains(out.Steps[2].Error.Message, "cannot run") {
			t.Fatalf("unknown tool message: %s", out.Steps[2].Error.Message)
		}
		if got := testIDText(t, h, "count"); got != "2" {
			t.Fatalf("counter %s, want 2 (the invalid step must not reach a handler)", got)
		}
		out = runSteps(t, h, "none", true, steps)
		if len(out.Steps) != 2 || out.Summary.Total != 4 || out.Summary.Failed != 1 {
			t.Fatalf("stopOnError: %+v", out.Summary)
		}
		if got := testIDText(t, h, "count"); got != "3" {
			t.Fatalf("counter %s, want 3", got)
		}
	})

	t.Run("single click records full observation", func(t *testing.T) {
		// Records are written after the answer: settle the earlier calls'
		// records (knowledge tools wait for them) before counting.
		must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1}))
		before := len(records(t, ws, sid))
		must(t, h.Call("mm_click", map[string]any{"testId": "counter"}))
		// The click answers before its record is written; the next call on
		// the session runs after it.
		must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1}))
		recs := records(t, ws, sid)[before:]
		if len(recs) != 1 || len(recs[0].Observation.TestIDs) == 0 || len(recs[0].Observation.A11y.Nodes) == 0 {
			t.Fatalf("single click record: %+v", recs)
		}
	})

	t.Run("none keeps the old refs, which go stale", func(t *testing.T) {
		var count string
		for _, n := range snapshot(t, h) {
			if n.Role == "button" && n.Name == "Count" {
				count = n.Ref
			}
		}
		if count == "" {
			t.Fatal("no Count button")
		}
		must(t, h.Call("mm_click", map[string]any{"a11yRef": count}))
		runSteps(t, h, "none", true, []map[string]any{{"tool": "mm_navigate", "args": map[string]any{"screen": "url", "url": srv.URL + "/?reloaded=" + strconv.Itoa(1)}}})
		env := h.Call("mm_click", map[string]any{"a11yRef": count, "timeoutMs": 1000})
		wantCode(t, env, "MM_TARGET_NOT_FOUND")
		if !strings.Contains(env.Error.Message, "fresh snapshot") {
			t.Fatalf("no hint: %s", env.Error.Message)
		}
	})
}
