package flows

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestSuiteFlowsValidate: every flow file of the e2e suite is valid
// against flow.schema.json.
func TestSuiteFlowsValidate(t *testing.T) {
	t.Setenv("FLOW_DAPP_URL", "http://127.0.0.1:1")
	paths, err := Collect([]string{"../../e2e/testdata/flows"})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 8 {
		t.Fatalf("want the 8 suite flows, found %v", paths)
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestParseRefusesA11yRef(t *testing.T) {
	_, err := Parse([]byte("name: x\nsteps:\n  - tool: mm_get_state\n  - tool: mm_click\n    args: {a11yRef: e5}\n"))
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != sdk.CodeInvalidInput {
		t.Fatalf("err %v, want MM_INVALID_INPUT", err)
	}
	for _, want := range []string{"step 2", "mm_click", "e5", "testId", "role"} {
		if !strings.Contains(se.Message, want) {
			t.Errorf("message %q does not name %q", se.Message, want)
		}
	}
	if se.Details["field"] != "steps.1.args.a11yRef" {
		t.Errorf("field %v", se.Details["field"])
	}
}

func TestParseSchemaErrors(t *testing.T) {
	wantFieldErrors(t, map[string]string{
		"steps: [{tool: mm_get_state}]\n":                             "name",
		"name: x\nsteps: []\n":                                        "steps",
		"name: x\nsteps: [{tool: t, bogus: 1}]\n":                     "steps.0.bogus",
		"name: x\nsteps: [{tool: t}]\nexpect: {state: {screen: 3}}\n": "expect.state.screen",
		"name: x\nsteps: [{tool: t}]\nexpect: {present: [{}]}\n":      "expect.present.0",
		"name: x\nsteps: [{tool: t}]\nlaunch: {ports: {anvil: 1}}\n":  "launch.ports",
		"name: x\nsteps: [{tool: t, target: {role: button}}]\n":       "steps.0.target",
	})
}

// wantFieldErrors: each document is refused by Parse, naming a field
// under its value.
func wantFieldErrors(t *testing.T, docs map[string]string) {
	t.Helper()
	for doc, field := range docs {
		_, err := Parse([]byte(doc))
		var se *sdk.Error
		if !errors.As(err, &se) {
			t.Errorf("%q: err %v", doc, err)
			continue
		}
		if f, _ := se.Details["field"].(string); !strings.HasPrefix(f, field) {
			t.Errorf("%q: field %q (%s), want %s", doc, f, se.Message, field)
		}
	}
}

func TestParseExpandsEnv(t *testing.T) {
	t.Setenv("FLOW_X", "http://a")
	f, err := Parse([]byte("name: x\nsteps: [{tool: mm_navigate, args: {screen: url, url: '${FLOW_X}/p'}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Steps[0].Args["url"]; got != "http://a/p" {
		t.Fatalf("url %v", got)
	}
	_, err = Parse([]byte("name: x\nsteps: [{tool: t, args: {u: '${FLOW_UNSET_VAR}'}}]\n"))
	if err == nil || !strings.Contains(err.Error(), "FLOW_UNSET_VAR") {
		t.Fatalf("err %v", err)
	}
}

// TestShardPick: the shards of a suite never overlap and their union is
// the suite, whatever the count.
func TestShardPick(t *testing.T) {
	var paths []string
	for _, c := range "abcdefghij" {
		paths = append(paths, string(c)+".yaml")
	}
	for n := 1; n <= 12; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			part := Shard{i, n}.Pick(paths)
			if len(part) > (len(paths)+n-1)/n {
				t.Fatalf("%d/%d has %d flows", i, n, len(part))
			}
			for _, p := range part {
				seen[p]++
			}
		}
		for _, p := range paths {
			if seen[p] != 1 {
				t.Fatalf("n=%d: %s in %d shards", n, p, seen[p])
			}
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) passed", bad)
		}
	}
}

// fakeSession answers calls from a script; fail makes a tool fail
// the first n times it is called.
type fakeSession struct {
	mu    sync.Mutex
	calls []string
	fail  map[string]int
	state map[string]any
	items []map[string]any
	nodes []map[string]any
	// texts are the visible texts of selectors (mm_get_text); any other
	// selector is not on the page
	texts map[string]string
	block bool
}

func (f *fakeSession) Call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	f.mu.Lock()
	b, _ := json.Marshal(args)
	f.calls = append(f.calls, tool+" "+string(b))
	n := f.fail[tool]
	if n > 0 {
		f.fail[tool] = n - 1
	}
	f.mu.Unlock()
	if n > 0 {
		return nil, sdk.Errorf(sdk.CodeTargetNotFound, "%s failed", tool)
	}
	if f.block && tool == "mm_click" {
		<-ctx.Done()
		return nil, sdk.Errorf(sdk.CodeCancelled, "cancelled")
	}
	var out any = map[string]any{}
	switch tool {
	case ToolLaunch:
		out = map[string]any{"sessionId": "mm-test-1"}
	case ToolGetState:
		out = map[string]any{"state": f.state}
	case ToolListTestIDs:
		out = map[string]any{"items": f.items}
	case ToolSnapshot:
		out = map[string]any{"nodes": f.nodes}
	case ToolGetText:
		text, ok := f.texts[args["selector"].(string)]
		if !ok {
			return nil, sdk.Errorf(sdk.CodeTargetNotFound, "no element matches %v", args["selector"])
		}
		out = map[string]any{"text": text}
	case ToolScreenshot:
		out = map[string]any{"path": "/shots/" + args["name"].(string) + ".png"}
	}
	return json.Marshal(out)
}

func (f *fakeSession) ConsoleErrors(context.Context) []string { return []string{"console.error: boom"} }

func (f *fakeSession) called(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func mustParse(t *testing.T, doc string) *Flow {
	t.Helper()
	f, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	f.Path = "flows/" + f.ID() + ".yaml"
	return f
}

func TestRunPassFailFlaky(t *testing.T) {
	out := t.TempDir()
	pass := mustParse(t, "name: pass\nsteps: [{tool: mm_click, target: {role: button, name: Send}}]\nexpect: {state: {screen: home}, present: [{testId: a, text: hi}, {testId: b}], absent: [{text: nope}]}\n")
	fail := mustParse(t, "name: fail\nsteps: [{tool: mm_click, args: {testId: x}}]\nexpect: {timeoutMs: 0, present: [{testId: missing}]}\n")
	flaky := mustParse(t, "name: flaky\nsteps: [{tool: mm_type, args: {testId: x, text: y}}]\n")
	sessions := map[string]*fakeSession{}
	var mu sync.Mutex
	o := Options{Parallel: 2, Retries: 1, Timeout: time.Minute, OutDir: out, KnowledgeDir: "/k",
		Session: func(owner string) Session {
			mu.Lock()
			defer mu.Unlock()
			s := &fakeSession{fail: map[string]int{}, state: map[string]any{"currentScreen": "home"},
				items: []map[string]any{{"testId": "a", "text": "hi there"}, {"testId": "b"}},
				nodes: []map[string]any{{"ref": "e7", "role": "button", "name": "Send"}}}
			if strings.HasSuffix(owner, ":flaky#1") {
				s.fail["mm_type"] = 1
			}
			sessions[owner] = s
			return s
		}}
	var progress strings.Builder
	o.Progress = &progress
	res := Run(context.Background(), []*Flow{pass, fail, flaky}, o)
	if res[0].Status != StatusPassed || res[0].Attempts != 1 {
		t.Fatalf("pass: %+v", res[0])
	}
	if got := sessions["flow:flows/pass.yaml:pass#1"].called(`mm_click {"a11yRef":"e7"}`); got != 1 {
		t.Fatalf("role+name not resolved to the ref: %v", sessions["flow:flows/pass.yaml:pass#1"].calls)
	}
	if res[1].Status != StatusFailed || res[1].Attempts != 2 || !strings.Contains(res[1].Error, `present testId "missing"`) {
		t.Fatalf("fail: %+v", res[1])
	}
	a := res[1].Artifacts
	if a == nil || a.Screenshot != "/shots/flow-fail-2.png" || a.StepRecords != "/k/mm-test-1" {
		t.Fatalf("artifacts %+v", a)
	}
	for _, p := range []string{a.Snapshot, a.ConsoleErrors, a.Steps} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("artifact: %v", err)
		}
	}
	if b, _ := os.ReadFile(a.ConsoleErrors); !strings.Contains(string(b), "boom") {
		t.Errorf("console errors %q", b)
	}
	if res[2].Status != StatusFlaky || res[2].Attempts != 2 {
		t.Fatalf("flaky: %+v", res[2])
	}
	for owner, s := range sessions {
		if s.called(ToolCleanup) != 1 {
			t.Errorf("%s: cleanup called %d times", owner, s.called(ToolCleanup))
		}
	}
	if lines := strings.Count(progress.String(), "\n"); lines < 3 {
		t.Errorf("progress %q", progress.String())
	}
	sum := Summarize(res, Shard{2, 3}, time.Second)
	if sum.OK() || sum.Passed != 1 || sum.Failed != 1 || sum.Flaky != 1 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestRunTimeout(t *testing.T) {
	f := mustParse(t, "name: slow\ntimeoutMs: 1000\nsteps: [{tool: mm_click, args: {testId: x}}]\n")
	s := &fakeSession{fail: map[string]int{}, block: true}
	res := Run(context.Background(), []*Flow{f}, Options{Parallel: 1, OutDir: t.TempDir(), Session: func(string) Session { return s }})
	if res[0].Status != StatusFailed || !strings.Contains(res[0].Error, "timed out after 1s") {
		t.Fatalf("%+v", res[0])
	}
	if s.called(ToolCleanup) != 1 || s.called(ToolScreenshot) != 1 {
		t.Fatalf("after a timeout: %v", s.calls)
	}
}

// TestReportsMerge: shards' JUnit and JSON reports join into one with
// every flow once; the JUnit parses back with one testcase per flow.
func TestReportsMerge(t *testing.T) {
	dir := t.TempDir()
	var xmls, jsons []string
	for i := 1; i <= 2; i++ {
		res := []Result{{Name: "a" + string(rune('0'+i)), Path: "p/a" + string(rune('0'+i)), Status: StatusPassed, Attempts: 1}}
		if i == 2 {
			res = append(res, Result{Name: "b", Path: "p/b", Status: StatusFailed, Attempts: 1, Error: "expectations not met", ErrorCode: "MM_X",
				Artifacts: &Artifacts{Screenshot: "/s.png"}})
		}
		s := Summarize(res, Shard{i, 2}, time.Second)
		x, j := filepath.Join(dir, "r"+string(rune('0'+i))+".xml"), filepath.Join(dir, "r"+string(rune('0'+i))+".json")
		if err := s.WriteJUnit(x); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteJSON(j); err != nil {
			t.Fatal(err)
		}
		xmls, jsons = append(xmls, x), append(jsons, j)
	}
	j, err := MergeJUnit(xmls)
	if err != nil {
		t.Fatal(err)
	}
	if j.Tests != 3 || j.Failures != 1 || len(j.Suites) != 2 {
		t.Fatalf("merged junit %+v", j)
	}
	out := filepath.Join(dir, "all.xml")
	if err := WriteMergedJUnit(out, j); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	var back JUnitSuites
	if err := xml.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	f := back.Suites[1].Cases[1]
	if f.Name != "b" || f.Failure == nil || !strings.Contains(f.Failure.Text, "screenshot: /s.png") {
		t.Fatalf("failed case %+v", f)
	}
	s, err := MergeJSON(jsons)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total != 3 || s.Failed != 1 || s.Flows[2].Shard != "2/2" {
		t.Fatalf("merged json %+v", s)
	}
}

// TestExport: a11yRef steps become role+name, looks are left out, the end
// state becomes the expectations, and the YAML parses back as a flow.
func TestExport(t *testing.T) {
	acct, chain := "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", int64(1337)
	obs := observation.Observation{State: observation.State{IsLoaded: true, IsUnlocked: true, CurrentScreen: "settings", AccountAddress: &acct, ChainID: &chain},
		TestIDs: []observation.TestIDItem{{TestID: "show-test-networks", Visible: true}}}
	recs := []knowledge.StepRecord{
		{Tool: knowledge.ToolCall{Name: "mm_launch", Input: map[string]any{"stateMode": "default", "ports": map[string]any{"anvil": 9}}}, Outcome: knowledge.Outcome{OK: true}},
		{Tool: knowledge.ToolCall{Name: "mm_accessibility_snapshot"}, Outcome: knowledge.Outcome{OK: true}},
		{Tool: knowledge.ToolCall{Name: "mm_click", Input: map[string]any{"a11yRef": "e4"}, Target: &knowledge.Target{A11yRef: "e4", Role: "button", Name: "Settings"}}, Outcome: knowledge.Outcome{OK: true}, Observation: obs},
		{Tool: knowledge.ToolCall{Name: "mm_click", Input: map[string]any{"testId": "nope"}}, Outcome: knowledge.Outcome{OK: false}},
		{Tool: knowledge.ToolCall{Name: "mm_type", Input: map[string]any{"testId": "pw"}, TextRedacted: true}, Outcome: knowledge.Outcome{OK: true}},
		{Tool: knowledge.ToolCall{Name: "wallet_import_account", Input: map[string]any{"privateKey": "[redacted 64 chars]", "label": "imported",
			"extra": map[string]any{"notes": []any{"ok", "key 0x[redacted]"}}}}, Outcome: knowledge.Outcome{OK: true}},
	}
	f, err := Export("", &knowledge.SessionMeta{SessionID: "mm-1", Goal: "open settings"}, recs)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "open settings" || len(f.Steps) != 3 || f.Launch["ports"] != nil || f.Launch["stateMode"] != "default" {
		t.Fatalf("flow %+v", f)
	}
	if s := f.Steps[0]; s.Target == nil || s.Target.Role != "button" || s.Target.Name != "Settings" || s.Target.RecordedRef != "e4" || s.Args["a11yRef"] != nil {
		t.Fatalf("step 1 %+v", s)
	}
	if f.Steps[1].Args["text"] != "${FLOW_TEXT_2}" {
		t.Fatalf("step 2 %v", f.Steps[1].Args)
	}
	// every withheld value is a variable, none stays a placeholder
	if a := f.Steps[2].Args; a["privateKey"] != "${FLOW_PRIVATE_KEY_3}" || a["label"] != "imported" ||
		a["extra"].(map[string]any)["notes"].([]any)[1] != "${FLOW_EXTRA_NOTES_1_3}" {
		t.Fatalf("step 3 %v", a)
	}
	if strings.Join(f.Vars, " ") != "FLOW_TEXT_2 FLOW_EXTRA_NOTES_1_3 FLOW_PRIVATE_KEY_3" {
		t.Fatalf("vars %v", f.Vars)
	}
	b, err := f.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "redacted") {
		t.Fatalf("the export keeps a placeholder:\n%s", b)
	}
	t.Setenv("FLOW_TEXT_2", "x")
	t.Setenv("FLOW_PRIVATE_KEY_3", "0xabc")
	t.Setenv("FLOW_EXTRA_NOTES_1_3", "n")
	back, err := Parse(b)
	if err != nil {
		t.Fatalf("export does not parse: %v\n%s", err, b)
	}
	if back.Expect.State.Screen != "settings" || back.Expect.State.Account != acct || len(back.Expect.Present) != 1 {
		t.Fatalf("expectations %+v\n%s", back.Expect, b)
	}
	recs[2].Tool.Target.Role = ""
	if _, err := Export("x", nil, recs); err == nil || !strings.Contains(err.Error(), "e4") {
		t.Fatalf("a ref without role: %v", err)
	}
}

// TestRunInterrupted: flows not started when the run is interrupted are
// reported failed as not run, and the running one ends.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a := mustParse(t, "name: a\nsteps: [{tool: mm_click, args: {testId: x}}]\n")
	b := mustParse(t, "name: b\nsteps: [{tool: mm_get_state}]\n")
	started := make(chan struct{})
	var once sync.Once
	s := &fakeSession{fail: map[string]int{}, block: true}
	res := make(chan []Result)
	go func() {
		res <- Run(ctx, []*Flow{a, b}, Options{Parallel: 1, OutDir: t.TempDir(), Session: func(string) Session {
			once.Do(func() { close(started) })
			return s
		}})
	}()
	<-started
	cancel()
	r := <-res
	if r[0].Status != StatusFailed || r[1].Status != StatusFailed || !strings.HasPrefix(r[1].Error, "not run") {
		t.Fatalf("%+v", r)
	}
}

// TestExpectSelector: present and absent name an element by CSS selector
// (the test dapp's #accounts) and compare its visible text.
func TestExpectSelector(t *testing.T) {
	s := &fakeSession{fail: map[string]int{}, texts: map[string]string{"#accounts": "0x5cfe73b6021e818b776b421b1c4db2474086a7e1", "#status": "Connected"}}
	for doc, want := range map[string]string{
		"present: [{selector: '#accounts', text: '0x5cfe'}, {selector: '#status'}]\nabsent: [{selector: '#error'}, {selector: '#status', text: Failed}]": "",
		"present: [{selector: '#accounts', text: '0xdead'}]": `present selector "#accounts" with text "0xdead": its text is "0x5cfe`,
		"present: [{selector: '#error'}]":                    `present selector "#error": not on the page`,
		"absent: [{selector: '#accounts', text: '0x'}]":      `absent selector "#accounts" with text "0x": on the page`,
	} {
		f := mustParse(t, "name: sel\nsteps: [{tool: mm_get_state}]\nexpect:\n  timeoutMs: 0\n  "+strings.ReplaceAll(doc, "\n", "\n  ")+"\n")
		err := f.Expect.verify(context.Background(), s)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", doc, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: err %v, want %q", doc, err, want)
		}
	}
	if _, err := Parse([]byte("name: x\nsteps: [{tool: t}]\nexpect: {present: [{testId: a, selector: '#a'}]}\n")); err == nil {
		t.Error("an element with both testId and selector was accepted")
	}
}
