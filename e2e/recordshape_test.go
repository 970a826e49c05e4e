package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// recordShapesGolden holds, per tool, the shapes of the step records and
// answers TestRecordShapes' calls make. MMCP_UPDATE_GOLDEN=1 rewrites it.
var recordShapesGolden = filepath.Join("testdata", "record-shapes.json")

// TestRecordShapes calls every recorded built-in tool (and the unrecorded
// ones beside them) in one session, on the wallet and on a dapp, with
// successes, a failure and a withheld secret, and holds the key sets of
// the step records written and of the answers against a golden file: how
// a record is made may change, what it holds may not (issue 52).
func TestRecordShapes(t *testing.T) {
	ws := watchWorkspace(t)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless", "--settle-timeout", "8s"}})
	t.Cleanup(func() {
		if h.Cmd.ProcessState == nil {
			h.Call("mm_build_watch_stop", map[string]any{})
			h.Call("mm_cleanup", map[string]any{})
		}
	})
	answers := map[string][]string{}
	call := func(tool string, args map[string]any) Envelope {
		t.Helper()
		env := h.Call(tool, args)
		answers[tool] = append(answers[tool], answerShape(t, env))
		return env
	}
	okCall := func(tool string, args map[string]any) Envelope {
		t.Helper()
		return must(t, call(tool, args))
	}

	okCall("mm_build_watch_start", map[string]any{})
	okCall("mm_build_watch_wait_ready", map[string]any{"timeoutMs": 30000})
	launched := must(t, call("mm_launch", withFreePorts(t, map[string]any{})))
	var l struct{ SessionID string }
	launched.Decode(t, &l)
	okCall("mm_get_state", map[string]any{})
	okCall("mm_get_context", map[string]any{})
	if env := call("mm_set_context", map[string]any{"context": "prod"}); env.OK {
		t.Fatal("mm_set_context switched while a session runs")
	}
	okCall("mm_describe_screen", map[string]any{"includeScreenshot": true})
	okCall("mm_list_testids", map[string]any{})
	okCall("mm_accessibility_snapshot", map[string]any{})
	okCall("mm_accessibility_snapshot", map[string]any{"format": "text"})
	okCall("mm_accessibility_snapshot", map[string]any{"rootSelector": "body"})
	okCall("mm_get_text", map[string]any{"testId": "global-menu-lock"})
	okCall("mm_screenshot", map[string]any{"name": "shape", "includeBase64": true})
	okCall("mm_visual_check", map[string]any{"name": "shape"})
	okCall("mm_visual_check", map[string]any{"name": "shape", "includeImage": true})
	okCall("mm_structure_check", map[string]any{"name": "shape"})
	okCall("mm_structure_check", map[string]any{"name": "shape"})
	okCall("mm_click", map[string]any{"testId": "global-menu-lock"})
	okCall("mm_wait_for", map[string]any{"testId": "unlock-password"})
	okCall("mm_type", map[string]any{"selector": "input[type=password]", "text": "correct horse battery staple"})
	okCall("mm_click", map[string]any{"testId": "unlock-submit"})
	okCall("mm_wait_for", map[string]any{"testId": "account-menu-icon", "timeoutMs": 15000})
	if env := call("mm_click", map[string]any{"testId": "no-such-element", "timeoutMs": 0}); env.OK {
		t.Fatal("a click on no element succeeded")
	}
	okCall("mm_clipboard", map[string]any{"action": "write", "text": "hello clipboard"})
	okCall("mm_clipboard", map[string]any{"action": "read"})
	okCall("mm_seed_contract", map[string]any{"contractName": "hst"})
	okCall("mm_seed_contracts", map[string]any{"contracts": []string{"nfts"}})
	okCall("mm_get_contract_address", map[string]any{"contractName": "hst"})
	okCall("mm_list_contracts", map[string]any{})

	dapp := dappServer(t)
	okCall("mm_navigate", map[string]any{"screen": "url", "url": dapp.URL})
	okCall("mm_visual_check", map[string]any{"name": "shape", "includeImage": true}) // changed: another page
	var snap struct{ Nodes []a11yNode }
	okCall("mm_accessibility_snapshot", map[string]any{}).Decode(t, &snap)
	count := refsNamed(snap.Nodes, "button", "Count")
	if len(count) != 1 {
		t.Fatalf("the dapp's Count button: refs %v", count)
	}
	okCall("mm_click", map[string]any{"a11yRef": count[0]})
	okCall("mm_click", map[string]any{"testId": "connect"})
	okCall("mm_wait_for_notification", map[string]any{"timeoutMs": 10000})
	okCall("mm_click", map[string]any{"testId": "page-container-footer-next"})
	okCall("mm_click", map[string]any{"testId": "page-container-footer-next"})
	okCall("mm_switch_to_tab", map[string]any{"role": "dapp"})
	// A confirmation read, refused by expect, approved; another rejected.
	okCall("mm_click", map[string]any{"testId": "send"})
	okCall("mm_confirmation", map[string]any{})
	if env := call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"value": "2"}}); env.OK {
		t.Fatal("mm_confirm approved a 1 ETH send expected to be 2 ETH")
	}
	okCall("mm_confirm", map[string]any{"action": "approve"})
	okCall("mm_click", map[string]any{"testId": "sign"})
	okCall("mm_confirm", map[string]any{"action": "reject"})
	okCall("mm_navigate", map[string]any{"screen": "url", "url": dapp.URL + "/?second", "newTab": true})
	okCall("mm_close_tab", map[string]any{"url": dapp.URL + "/?second"})
	okCall("mm_navigate", map[string]any{"screen": "home"})
	okCall("mm_run_steps", map[string]any{"includeObservations": "none", "steps": []map[string]any{
		{"tool": "mm_get_state", "args": map[string]any{}},
		{"tool": "mm_list_testids", "args": map[string]any{}},
	}})
	okCall("mm_reload_extension", map[string]any{})
	editHome(t, ws, tabLabel("Tokenz1"))
	okCall("mm_build_watch_wait_ready", map[string]any{"timeoutMs": 30000})
	okCall("mm_build_watch_stop", map[string]any{})
	okCall("mm_knowledge_last", map[string]any{"n": 1}) // waits for the records
	okCall("mm_knowledge_search", map[string]any{"query": "click"})
	okCall("mm_knowledge_sessions", map[string]any{})
	okCall("mm_knowledge_summarize", map[string]any{})
	okCall("mm_cleanup", map[string]any{})
	okCall("mm_knowledge_sessions", map[string]any{}) // waits for cleanup's record

	records := map[string][]string{}
	for _, r := range readRecords[map[string]any](t, ws, l.SessionID) {
		tool, _ := r["tool"].(map[string]any)
		name, _ := tool["name"].(string)
		records[name] = append(records[name], recordShape(r))
	}
	got := shapes{Records: sorted(records), Answers: sorted(answers)}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if os.Getenv("MMCP_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(recordShapesGolden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	wantB, err := os.ReadFile(recordShapesGolden)
	if err != nil {
		t.Fatalf("%v (MMCP_UPDATE_GOLDEN=1 writes it)", err)
	}
	var want shapes
	if err := json.Unmarshal(wantB, &want); err != nil {
		t.Fatal(err)
	}
	diffShapes(t, "record", want.Records, got.Records)
	diffShapes(t, "answer", want.Answers, got.Answers)
}

// shapes are the golden file's content: per tool, the shapes seen, sorted.
type shapes struct {
	Records map[string][]string `json:"records"`
	Answers map[string][]string `json:"answers"`
}

func sorted(m map[string][]string) map[string][]string {
	for _, v := range m {
		sort.Strings(v)
	}
	return m
}

func diffShapes(t *testing.T, kind string, want, got map[string][]string) {
	t.Helper()
	for tool, w := range want {
		g := got[tool]
		if strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Errorf("%s %s: shapes changed\nwant:\n  %s\ngot:\n  %s", kind, tool, strings.Join(w, "\n  "), strings.Join(g, "\n  "))
		}
	}
	for tool := range got {
		if _, ok := want[tool]; !ok {
			t.Errorf("%s %s: not in %s", kind, tool, recordShapesGolden)
		}
	}
}

// recordShape is a record's key paths, sorted, on one line: objects
// opened, arrays marked empty ([]) or not ([..]) and not entered, values
// left out; the labels are kept, as they classify the record.
func recordShape(r map[string]any) string {
	var paths []string
	keyPaths("", r, &paths)
	// a build id label names the build: its shape, not its hash
	if ls, ok := r["labels"].([]any); ok {
		for i, l := range ls {
			if s, _ := l.(string); strings.HasPrefix(s, "build:") {
				ls[i] = "build:<id>"
			}
		}
	}
	labels, _ := json.Marshal(r["labels"])
	return strings.Join(paths, " ") + " labels=" + string(labels)
}

// answerShape is an answer's outcome and its result's key paths.
func answerShape(t *testing.T, env Envelope) string {
	t.Helper()
	if !env.OK {
		code := ""
		if env.Error != nil {
			code = env.Error.Code
		}
		return "error " + code
	}
	var v any
	if err := json.Unmarshal(env.Result, &v); err != nil {
		t.Fatal(err)
	}
	var paths []string
	keyPaths("", v, &paths)
	return "ok " + strings.Join(paths, " ")
}

func keyPaths(prefix string, v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			*out = append(*out, p)
			keyPaths(p, v[k], out)
		}
	case []any:
		if len(v) == 0 {
			*out = append(*out, prefix+"[]")
		} else {
			*out = append(*out, prefix+"[..]")
		}
	}
}
