package flows

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/sdk"
)

// fakeWallet is a wallet whose screen is the set of testids on it; a click
// on one that is there moves the screen on (next), one that is not is
// MM_TARGET_NOT_FOUND. renamed is the changed wallet: the confirm button's
// testid is confirm-footer-button.
type fakeWallet struct {
	mu     sync.Mutex
	screen map[string]bool
	next   map[string][]string
	calls  []string
}

func newFakeWallet(renamed bool) *fakeWallet {
	confirm := "confirm-button"
	if renamed {
		confirm = "confirm-footer-button"
	}
	return &fakeWallet{
		screen: map[string]bool{"open-request": true},
		next: map[string][]string{
			"open-request":  {confirm, "reject-button"},
			confirm:         {"done", "approved"},
			"reject-button": {"done", "rejected"},
			"done":          {"tx-status"},
		},
	}
}

func (w *fakeWallet) Call(_ context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, _ := json.Marshal(args)
	w.calls = append(w.calls, tool+" "+string(b))
	var items []map[string]any
	for id := range w.screen {
		items = append(items, map[string]any{"testId": id, "text": id, "visible": true})
	}
	switch tool {
	case "mm_click":
		id, _ := args["testId"].(string)
		if !w.screen[id] {
			return nil, sdk.Errorf(sdk.CodeTargetNotFound, "no element with testId %q", id)
		}
		shown := map[string]bool{}
		for _, n := range w.next[id] {
			shown[n] = true
		}
		// The outcome of the request stays on the screen.
		for _, keep := range []string{"approved", "rejected"} {
			if w.screen[keep] {
				shown[keep] = true
			}
		}
		w.screen = shown
		return json.RawMessage(`{}`), nil
	case "mm_type":
		// A tool whose error echoes its input, as a careless one might.
		id, _ := args["testId"].(string)
		if !w.screen[id] {
			return nil, sdk.Errorf(sdk.CodeTargetNotFound, "no element with testId %q to type %q into", id, args["text"])
		}
		return json.RawMessage(`{}`), nil
	case ToolConfirm:
		return nil, sdk.Errorf("MM_NO_CONFIRMATION", "no confirmation is pending")
	case ToolDescribeScreen:
		return json.Marshal(map[string]any{
			"state":          map[string]any{"currentScreen": "confirm-transaction"},
			"testIds":        map[string]any{"items": items},
			"priorKnowledge": map[string]any{"hints": []string{"mm_click confirm-footer-button on confirm-transaction (session mm-old)"}},
		})
	case ToolListTestIDs:
		return json.Marshal(map[string]any{"items": items})
	}
	return json.RawMessage(`{}`), nil
}

// approveFlow approves the request and expects it approved.
const approveFlow = `# approve the dapp's request
name: approve request
steps:
  - tool: mm_click
    args:
      testId: open-request
  - tool: mm_click
    args:
      testId: confirm-button
  - tool: mm_click
    args:
      testId: done
expect:
  timeoutMs: 0
  present:
    - testId: approved
`

func writeFlow(t *testing.T) (string, *Flow, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "approve.flow.yaml")
	if err := os.WriteFile(p, []byte(approveFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, f, []byte(approveFlow)
}

// TestDriftPassesOnTheRecordedWallet: the flow passes on the wallet it was
// recorded on and writes nothing.
func TestDriftPassesOnTheRecordedWallet(t *testing.T) {
	p, f, src := writeFlow(t)
	out := Play(context.Background(), newFakeWallet(false), f, src, 0)
	if out.Verdict != DriftPassed {
		t.Fatalf("verdict %s %v", out.Verdict, out.Failed)
	}
	if _, err := os.Stat(RepairedPath(p)); !os.IsNotExist(err) {
		t.Fatalf("a passing run wrote %s", RepairedPath(p))
	}
}

// TestDriftStopsAtTheRenamedTarget: on the changed wallet the run stops at
// step 2 with its error, the screen and the earlier sessions' hints.
func TestDriftStopsAtTheRenamedTarget(t *testing.T) {
	_, f, src := writeFlow(t)
	w := newFakeWallet(true)
	out := Play(context.Background(), w, f, src, 0)
	if out.Verdict != DriftStopped || out.Stop == nil {
		t.Fatalf("verdict %s, want stopped", out.Verdict)
	}
	st := out.Stop
	if st.Step != 2 || st.ErrorCode != sdk.CodeTargetNotFound || !strings.Contains(st.Error, "confirm-button") {
		t.Fatalf("stop at %d: %s %s", st.Step, st.ErrorCode, st.Error)
	}
	if !strings.Contains(string(st.Screen), "confirm-footer-button") {
		t.Errorf("screen %s does not show the renamed button", st.Screen)
	}
	if !strings.Contains(string(st.Hints), "mm-old") {
		t.Errorf("hints %s", st.Hints)
	}
	for _, c := range w.calls {
		if strings.Contains(c, `"done"`) {
			t.Errorf("the run went on past the failing step: %v", w.calls)
		}
	}
}

// TestDriftRepairIsWrittenBesideTheOriginal: the agent clicks the renamed
// button, Resume runs the rest, the expectation holds: the repaired flow
// is written beside the original (which is unchanged) with a diff, and it
// passes on the changed wallet.
func TestDriftRepairIsWrittenBesideTheOriginal(t *testing.T) {
	p, f, src := writeFlow(t)
	w := newFakeWallet(true)
	ctx := context.Background()
	out := Play(ctx, w, f, src, 0)
	if out.Verdict != DriftStopped {
		t.Fatalf("verdict %s", out.Verdict)
	}
	// The agent does the step.
	if _, err := w.Call(ctx, "mm_click", map[string]any{"testId": "confirm-footer-button"}); err != nil {
		t.Fatal(err)
	}
	res, err := Resume(ctx, w, out.Stop, []Step{{Tool: "mm_click", Args: map[string]any{"testId": "confirm-footer-button"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != DriftRepaired {
		t.Fatalf("verdict %s %v", res.Verdict, res.Failed)
	}
	t.Logf("diff:\n%s\nrepaired:\n%s", res.Diff, res.YAML)
	if want := filepath.Join(filepath.Dir(p), "approve.repaired.flow.yaml"); res.RepairedPath != want {
		t.Fatalf("repaired path %s, want %s", res.RepairedPath, want)
	}
	orig, _ := os.ReadFile(p)
	if string(orig) != approveFlow {
		t.Fatalf("the original changed:\n%s", orig)
	}
	for _, want := range []string{"-       testId: confirm-button", "+       testId: confirm-footer-button", "@@ line"} {
		if !strings.Contains(res.Diff, want) {
			t.Errorf("diff does not hold %q:\n%s", want, res.Diff)
		}
	}
	if strings.Contains(res.Diff, "open-request") && strings.Contains(res.Diff, "- ") && strings.Count(res.Diff, "\n-") > 1 {
		t.Errorf("diff changes more than the step:\n%s", res.Diff)
	}
	repaired, err := Load(res.RepairedPath)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(res.RepairedPath)
	if !strings.Contains(string(text), "# approve the dapp's request") || !strings.Contains(string(text), "repaired: was") {
		t.Errorf("repaired flow lost the comment or says nothing of the repair:\n%s", text)
	}
	if again := Play(ctx, newFakeWallet(true), repaired, text, 0); again.Verdict != DriftPassed {
		t.Fatalf("repaired flow on the changed wallet: %s %v", again.Verdict, again.Failed)
	}
}

// TestDriftRepairThatRejectsIsARegression: a "repair" that rejects where
// the flow approved fails the flow's expectation: a regression, and
// nothing is written.
func TestDriftRepairThatRejectsIsARegression(t *testing.T) {
	p, f, src := writeFlow(t)
	w := newFakeWallet(true)
	ctx := context.Background()
	out := Play(ctx, w, f, src, 0)
	if _, err := w.Call(ctx, "mm_click", map[string]any{"testId": "reject-button"}); err != nil {
		t.Fatal(err)
	}
	res, err := Resume(ctx, w, out.Stop, []Step{{Tool: "mm_click", Args: map[string]any{"testId": "reject-button"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != DriftRegression || len(res.Failed) == 0 || !strings.Contains(res.Failed[0], "approved") {
		t.Fatalf("verdict %s %v, want a regression on present approved", res.Verdict, res.Failed)
	}
	if _, err := os.Stat(RepairedPath(p)); !os.IsNotExist(err) {
		t.Fatalf("a regression wrote %s", RepairedPath(p))
	}
	if res.RepairedPath != "" || res.Diff != "" {
		t.Fatalf("a regression answers a repair: %+v", res)
	}
}

// TestDriftResumeStopsAgain: a later step that fails stops again, the
// first repair kept; the second repair writes both.
func TestDriftResumeStopsAgain(t *testing.T) {
	_, f, src := writeFlow(t)
	w := newFakeWallet(true)
	w.next["confirm-footer-button"] = []string{"finish", "approved"} // "done" renamed too
	ctx := context.Background()
	out := Play(ctx, w, f, src, 0)
	_, _ = w.Call(ctx, "mm_click", map[string]any{"testId": "confirm-footer-button"})
	res, err := Resume(ctx, w, out.Stop, []Step{{Tool: "mm_click", Args: map[string]any{"testId": "confirm-footer-button"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != DriftStopped || res.Stop.Step != 3 {
		t.Fatalf("verdict %s, want stopped at 3", res.Verdict)
	}
	_, _ = w.Call(ctx, "mm_click", map[string]any{"testId": "finish"})
	res, err = Resume(ctx, w, res.Stop, []Step{{Tool: "mm_click", Args: map[string]any{"testId": "finish"}}})
	if err != nil || res.Verdict != DriftRepaired {
		t.Fatalf("second repair: %v %s %v", err, res.Verdict, res.Failed)
	}
	for _, want := range []string{"+       testId: confirm-footer-button", "+       testId: finish"} {
		if !strings.Contains(res.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, res.Diff)
		}
	}
}

// TestResumeRefusesUnstableTargets: a replacement by a11yRef alone, or a
// click naming no element, is refused before anything runs.
func TestResumeRefusesUnstableTargets(t *testing.T) {
	_, f, src := writeFlow(t)
	w := newFakeWallet(true)
	ctx := context.Background()
	out := Play(ctx, w, f, src, 0)
	n := len(w.calls)
	for _, repl := range [][]Step{
		nil,
		{{Tool: "mm_click", Args: map[string]any{"a11yRef": "e7"}}},
		{{Tool: "mm_click", Args: map[string]any{}}},
	} {
		_, err := Resume(ctx, w, out.Stop, repl)
		var se *sdk.Error
		if !errors.As(err, &se) || se.Code != sdk.CodeInvalidInput {
			t.Errorf("replacement %v: err %v, want MM_INVALID_INPUT", repl, err)
		}
	}
	if len(w.calls) != n {
		t.Errorf("a refused replacement ran calls: %v", w.calls[n:])
	}
	// By role and name is stable.
	if err := stable([]Step{{Tool: "mm_click", Target: &Target{Role: "button", Name: "Confirm"}}}); err != nil {
		t.Error(err)
	}
}

// TestReplacementFromRecords: the agent's looks and failed calls are left
// out; an a11yRef click becomes its role and name.
func TestReplacementFromRecords(t *testing.T) {
	steps, _, err := Replacement([]knowledge.StepRecord{
		{Tool: knowledge.ToolCall{Name: "mm_describe_screen"}, Outcome: knowledge.Outcome{OK: true}},
		{Tool: knowledge.ToolCall{Name: "mm_click", Input: map[string]any{"testId": "confirm-button"}}, Outcome: knowledge.Outcome{OK: false}},
		{Tool: knowledge.ToolCall{Name: "mm_click", Input: map[string]any{"a11yRef": "e4"}, Target: &knowledge.Target{A11yRef: "e4", Role: "button", Name: "Confirm"}}, Outcome: knowledge.Outcome{OK: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1 || steps[0].Target == nil || steps[0].Target.Name != "Confirm" || steps[0].Args["a11yRef"] != nil {
		t.Fatalf("steps %+v", steps)
	}
	if _, _, err := Replacement([]knowledge.StepRecord{{Tool: knowledge.ToolCall{Name: "mm_describe_screen"}, Outcome: knowledge.Outcome{OK: true}}}); err == nil {
		t.Fatal("looks only: no error")
	}
}

func TestRepairedPath(t *testing.T) {
	for in, want := range map[string]string{
		"/f/a.flow.yaml":          "/f/a.repaired.flow.yaml",
		"/f/b.yml":                "/f/b.repaired.flow.yaml",
		"/f/a.repaired.flow.yaml": "/f/a.repaired.flow.yaml",
	} {
		if got := RepairedPath(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestLineDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	b := "1\n2\n3\nfour\n5\n6\n7\n8\n9\n"
	want := "@@ line 2\n  2\n  3\n- 4\n+ four\n  5\n  6\n"
	if got := LineDiff(a, b); got != want {
		t.Fatalf("diff\n%s\nwant\n%s", got, want)
	}
	if LineDiff(a, a) != "" {
		t.Fatal("equal texts differ")
	}
}

func (w *fakeWallet) ConsoleErrors(context.Context) []string { return nil }

// TestHandoffBundleReopens: a flow that fails at its renamed step is
// handed off (flow, failing step, error, screen with hints, snapshot); the
// summary counts it; OpenHandoff gives back the flow, whose repair is
// written beside the original, and Play stops again at that step.
func TestHandoffBundleReopens(t *testing.T) {
	p, f, _ := writeFlow(t)
	out := t.TempDir()
	results := Run(context.Background(), []*Flow{f}, Options{
		Parallel: 1, OutDir: filepath.Join(out, "artifacts"), Describe: true,
		Session: func(string) Session { return newFakeWallet(true) },
	})
	dir := filepath.Join(out, "handoff")
	if err := Handoffs(dir, []*Flow{f}, results); err != nil {
		t.Fatal(err)
	}
	if sum := Summarize(results, Shard{1, 1}, 0); sum.HandedOff != 1 || sum.Failed != 1 {
		t.Fatalf("summary %+v", sum)
	}
	h, g, src, err := OpenHandoff(results[0].Handoff)
	if err != nil {
		t.Fatal(err)
	}
	if h.FailedStep != 2 || h.ErrorCode != sdk.CodeTargetNotFound || !strings.Contains(h.Error, "confirm-button") {
		t.Fatalf("hand-off %+v", h)
	}
	if !strings.Contains(string(h.Hints), "mm-old") || h.Screen == "" || h.Snapshot == "" {
		t.Fatalf("hand-off lacks screen, hints or snapshot: %+v", h)
	}
	if g.Path != p || string(src) != approveFlow {
		t.Fatalf("flow path %s, text %q", g.Path, src)
	}
	if st := Play(context.Background(), newFakeWallet(true), g, src, 0); st.Verdict != DriftStopped || st.Stop.Step != 2 {
		t.Fatalf("reopened: %s", st.Verdict)
	}
	if _, _, _, err := OpenHandoff(out); err == nil || !strings.Contains(err.Error(), "no hand-off bundle") {
		t.Fatalf("a folder without a bundle: %v", err)
	}
}

// TestCollectLeavesRepairedFlowsOut: a folder with a flow and its repair
// runs the flow once (the two share a name); the repair runs when named.
func TestCollectLeavesRepairedFlowsOut(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"approve.flow.yaml", "approve.repaired.flow.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(approveFlow), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Collect([]string{dir})
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "approve.flow.yaml" {
		t.Fatalf("folder: %v %v", got, err)
	}
	named := filepath.Join(dir, "approve.repaired.flow.yaml")
	if got, err := Collect([]string{named}); err != nil || len(got) != 1 || got[0] != named {
		t.Fatalf("named: %v %v", got, err)
	}
}
