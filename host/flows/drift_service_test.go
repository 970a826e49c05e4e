package flows

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/sdk"
)

// clientSession is a client's view of a session on the fake wallet: the
// agent's clicks are recorded for mm_flow_resume.
type clientSession struct {
	*fakeWallet
	client string
	recs   *[]knowledge.StepRecord
}

func (s clientSession) Active(context.Context) bool { return true }
func (s clientSession) Client() string              { return s.client }
func (s clientSession) Since(context.Context, time.Time) ([]knowledge.StepRecord, error) {
	return *s.recs, nil
}

// click is the agent's click by testId, recorded.
func (s clientSession) click(t *testing.T, id string) {
	t.Helper()
	args := map[string]any{"testId": id}
	if _, err := s.Call(context.Background(), "mm_click", args); err != nil {
		t.Fatal(err)
	}
	*s.recs = append(*s.recs, knowledge.StepRecord{Tool: knowledge.ToolCall{Name: "mm_click", Input: args}, Outcome: knowledge.Outcome{OK: true}})
}

func newClient(client string) clientSession {
	return clientSession{fakeWallet: newFakeWallet(true), client: client, recs: new([]knowledge.StepRecord)}
}

func wantCode(t *testing.T, err error, code string) *sdk.Error {
	t.Helper()
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != code {
		t.Fatalf("err %v, want %s", err, code)
	}
	return se
}

// workspaceWithFlow is a workspace holding flows/approve.flow.yaml, and a
// folder outside it holding the same flow.
func workspaceWithFlow(t *testing.T) (ws, outside string) {
	t.Helper()
	ws, outside = t.TempDir(), t.TempDir()
	for _, dir := range []string{filepath.Join(ws, "flows"), outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "approve.flow.yaml"), []byte(approveFlow), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

// TestFlowRunConfinedToTheWorkspace: a remote client's path resolves
// against the workspace (not the process's working directory) and may not
// leave it, neither as written nor through a symlink; nor may a hand-off
// folder, or the flow file its bundle names. The local client (stdio)
// names any file.
func TestFlowRunConfinedToTheWorkspace(t *testing.T) {
	ws, out := workspaceWithFlow(t)
	if err := os.Symlink(out, filepath.Join(ws, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(out) // a relative path must not resolve here
	d := &Drifts{Workspace: ws}
	ctx := context.Background()

	a, err := d.Run(ctx, newClient("http-a"), RunInput{Path: "flows/approve.flow.yaml"})
	if err != nil || a.Verdict != DriftStopped || a.Path != filepath.Join(ws, "flows", "approve.flow.yaml") {
		t.Fatalf("relative path: %v %+v", err, a)
	}
	if _, err := d.Run(ctx, newClient("http-a"), RunInput{Path: "approve.flow.yaml"}); err == nil {
		t.Fatal("a relative path resolved against the working directory")
	}
	for _, p := range []string{
		filepath.Join(out, "approve.flow.yaml"),
		"../" + filepath.Base(out) + "/approve.flow.yaml",
		"elsewhere/approve.flow.yaml",
		filepath.Join(ws, "elsewhere", "approve.flow.yaml"),
	} {
		_, err := d.Run(ctx, newClient("http-a"), RunInput{Path: p})
		se := wantCode(t, err, sdk.CodePathOutsideWorkspace)
		if !strings.Contains(se.Message, "outside the workspace") {
			t.Errorf("%s: %s", p, se.Message)
		}
	}
	_, err = d.Run(ctx, newClient("http-a"), RunInput{Handoff: out})
	wantCode(t, err, sdk.CodePathOutsideWorkspace)
	_, err = d.Run(ctx, newClient("http-a"), RunInput{Handoff: "elsewhere"})
	wantCode(t, err, sdk.CodePathOutsideWorkspace)

	// A bundle inside the workspace whose flow file is outside: the
	// repair would be written there.
	f, err := Load(filepath.Join(out, "approve.flow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := WriteHandoff(filepath.Join(ws, "handoff"), f, Result{Status: StatusFailed, FailedStep: 2, Error: "step 2"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Run(ctx, newClient("http-a"), RunInput{Handoff: b})
	wantCode(t, err, sdk.CodePathOutsideWorkspace)

	// Without a workspace a remote client names no file.
	_, err = (&Drifts{}).Run(ctx, newClient("http-a"), RunInput{Path: filepath.Join(out, "approve.flow.yaml")})
	wantCode(t, err, sdk.CodeNoWorkspace)

	// A remote client's inline flow does not read the host's environment.
	t.Setenv("FLOW_HOST_SECRET", "s3cr3t-value")
	inline := "name: inline\nsteps:\n  - tool: mm_navigate\n    args: {url: \"http://127.0.0.1:1/?k=${FLOW_HOST_SECRET}\"}\n"
	_, err = d.Run(ctx, newClient("http-a"), RunInput{Flow: inline})
	if se := wantCode(t, err, sdk.CodeInvalidInput); !strings.Contains(se.Message, "${FLOW_HOST_SECRET}") {
		t.Errorf("inline flow: %s", se.Message)
	}
	if a, err := d.Run(ctx, newClient(""), RunInput{Flow: inline}); err != nil || a.Verdict != DriftPassed {
		t.Fatalf("local client's inline flow: %v %+v", err, a)
	}

	// The local client: any file.
	if a, err := d.Run(ctx, newClient(""), RunInput{Path: filepath.Join(out, "approve.flow.yaml")}); err != nil || a.Verdict != DriftStopped {
		t.Fatalf("local client: %v %+v", err, a)
	}
}

// TestFlowRepairNotWrittenThroughALink: a repaired flow's file that is a
// symlink leading out of the workspace is not written for a remote client.
func TestFlowRepairNotWrittenThroughALink(t *testing.T) {
	ws, out := workspaceWithFlow(t)
	target := filepath.Join(out, "victim")
	if err := os.Symlink(target, filepath.Join(ws, "flows", "approve.repaired.flow.yaml")); err != nil {
		t.Fatal(err)
	}
	d := &Drifts{Workspace: ws}
	ctx := context.Background()
	s := newClient("http-a")
	a, err := d.Run(ctx, s, RunInput{Path: filepath.Join(ws, "flows", "approve.flow.yaml")})
	if err != nil || a.Verdict != DriftStopped {
		t.Fatalf("%v %+v", err, a)
	}
	s.click(t, "confirm-footer-button")
	_, err = d.Resume(ctx, s, ResumeInput{Handle: a.Handle})
	wantCode(t, err, sdk.CodePathOutsideWorkspace)
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("written through the link: %v", err)
	}
}

// TestFlowHandleBelongsToItsClient: client B cannot resume client A's
// handle (and A's handle survives B's attempt); A resumes it.
func TestFlowHandleBelongsToItsClient(t *testing.T) {
	ws, _ := workspaceWithFlow(t)
	d := &Drifts{Workspace: ws}
	ctx := context.Background()
	a := newClient("http-a")
	stop, err := d.Run(ctx, a, RunInput{Path: filepath.Join(ws, "flows", "approve.flow.yaml")})
	if err != nil || stop.Handle == "" {
		t.Fatalf("%v %+v", err, stop)
	}
	b := newClient("http-b")
	_, err = d.Resume(ctx, b, ResumeInput{Handle: stop.Handle})
	se := wantCode(t, err, sdk.CodeHandleNotOwned)
	if !strings.Contains(se.Message, "another client") {
		t.Errorf("message %s", se.Message)
	}
	_, err = d.Resume(ctx, newClient(""), ResumeInput{Handle: stop.Handle})
	wantCode(t, err, sdk.CodeHandleNotOwned)
	a.click(t, "confirm-footer-button")
	res, err := d.Resume(ctx, a, ResumeInput{Handle: stop.Handle})
	if err != nil || res.Verdict != DriftRepaired {
		t.Fatalf("the owner's resume: %v %+v", err, res)
	}
}

// TestFlowStopShowsPlaceholders: a step that fails with a variable in its
// args is answered with the ${VAR} as the file has it, and its value is
// nowhere in the answer (the error echoes it), nor in a hand-off bundle.
func TestFlowStopShowsPlaceholders(t *testing.T) {
	const secret = "correct horse battery staple"
	t.Setenv("FLOW_WALLET_PASSWORD", secret)
	src := strings.Replace(approveFlow, `  - tool: mm_click
    args:
      testId: confirm-button`, `  - tool: mm_type
    args:
      testId: password
      text: "${FLOW_WALLET_PASSWORD}"`, 1)
	p := filepath.Join(t.TempDir(), "unlock.flow.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Drifts{}
	a, err := d.Run(context.Background(), newClient(""), RunInput{Path: p})
	if err != nil || a.Verdict != DriftStopped || a.Stopped.Index != 2 {
		t.Fatalf("%v %+v", err, a)
	}
	if a.Stopped.Args["text"] != "${FLOW_WALLET_PASSWORD}" {
		t.Errorf("stopped.args %v", a.Stopped.Args)
	}
	if !strings.Contains(a.Stopped.Error, "${FLOW_WALLET_PASSWORD}") {
		t.Errorf("error %s", a.Stopped.Error)
	}
	if j := jsonText(t, a); strings.Contains(j, secret) {
		t.Fatalf("the answer carries the value: %s", j)
	}

	// A confirm step stops as mm_confirm, its expect as written.
	t.Setenv("FLOW_RECIPIENT", "0x09781764C08DE8CA82E156bbf156A3ca217C7950")
	confirm := strings.Replace(src, `  - tool: mm_type
    args:
      testId: password
      text: "${FLOW_WALLET_PASSWORD}"`, `  - confirm:
      action: approve
      expect: {to: "${FLOW_RECIPIENT}"}`, 1)
	a, err = d.Run(context.Background(), newClient(""), RunInput{Flow: confirm})
	if err != nil || a.Verdict != DriftStopped || a.Stopped.Tool != ToolConfirm || a.Stopped.Confirm == nil || a.Stopped.Confirm.Expect["to"] != "${FLOW_RECIPIENT}" {
		t.Fatalf("confirm step: %v %+v", err, a.Stopped)
	}

	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	results := Run(context.Background(), []*Flow{f}, Options{
		Parallel: 1, OutDir: filepath.Join(t.TempDir(), "artifacts"), Describe: true,
		Session: func(string) Session { return newFakeWallet(true) },
	})
	if err := Handoffs(filepath.Join(t.TempDir(), "handoff"), []*Flow{f}, results); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(results[0].Handoff, func(path string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), secret) {
				t.Errorf("hand-off file %s carries the value", filepath.Base(path))
			}
		}
		return nil
	})
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepairsCountedInTheReport: two flows fail on the changed wallet and
// are handed off; the agent repairs one and "repairs" the other by
// rejecting. The run's summary, read back as a report (MergeJSON: mmcp
// report, merge-reports), counts 2 replayed, 2 failed, 2 handed off, 1
// repaired, 1 regression in its line, its JSON and its HTML page. A new run
// of the suite hands them off afresh, without the old repairs.
func TestRepairsCountedInTheReport(t *testing.T) {
	dir := t.TempDir()
	var suite []*Flow
	for _, name := range []string{"approve", "approve again"} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".flow.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(approveFlow, "name: approve request", "name: "+name, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		suite = append(suite, f)
	}
	run := func() []Result {
		results := Run(context.Background(), suite, Options{
			Parallel: 1, OutDir: filepath.Join(dir, "artifacts"), Describe: true,
			Session: func(string) Session { return newFakeWallet(true) },
		})
		if err := Handoffs(filepath.Join(dir, "handoff"), suite, results); err != nil {
			t.Fatal(err)
		}
		return results
	}
	results := run()
	sum := Summarize(results, Shard{1, 1}, 0)
	if got, want := sum.Counts(), "2 replayed: 0 passed, 2 failed, 0 flaky, 2 handed off"; got != want {
		t.Fatalf("counts %q, want %q", got, want)
	}
	js := filepath.Join(dir, "summary.json")
	if err := sum.WriteJSON(js); err != nil {
		t.Fatal(err)
	}

	d := &Drifts{}
	ctx := context.Background()
	for i, click := range []string{"confirm-footer-button", "reject-button"} {
		s := newClient("")
		a, err := d.Run(ctx, s, RunInput{Handoff: results[i].Handoff})
		if err != nil || a.Verdict != DriftStopped {
			t.Fatalf("%v %+v", err, a)
		}
		s.click(t, click)
		if _, err := d.Resume(ctx, s, ResumeInput{Handle: a.Handle}); err != nil {
			t.Fatal(err)
		}
	}

	report, err := MergeJSON([]string{js})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := report.Counts(), "2 replayed: 0 passed, 2 failed, 0 flaky, 2 handed off, 1 repaired, 1 regression"; got != want {
		t.Fatalf("report counts %q, want %q", got, want)
	}
	out := filepath.Join(dir, "merged.json")
	if err := report.WriteJSON(out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{`"replayed": 2`, `"handedOff": 2`, `"repaired": 1`, `"regression": 1`, `"verdict": "regression"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON report lacks %s", want)
		}
	}
	page, err := report.WriteHTML(filepath.Join(dir, "html"))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := os.ReadFile(page)
	for _, want := range []string{`<b>2</b> replayed`, `<b>2</b> handed off`, `<b>1</b> repaired`, `<b>1</b> regression`, `approve.repaired.flow.yaml</code> passed`} {
		if !strings.Contains(string(h), want) {
			t.Errorf("HTML report lacks %s", want)
		}
	}

	run()
	if again, _ := MergeJSON([]string{js}); again.Repaired+again.Regression != 0 {
		t.Fatalf("a new run's bundles kept the old repairs: %+v", again)
	}
}
