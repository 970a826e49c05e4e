package flows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/sdk"
)

// ToolDescribeScreen is the look a stopped flow answers with: the screen
// and the hints of earlier sessions on it (its priorKnowledge).
const ToolDescribeScreen = "mm_describe_screen"

// Verdicts of a drift run (Play) and of a repair (Resume).
const (
	// DriftPassed: every step and expectation passed.
	DriftPassed = "passed"
	// DriftStopped: a step failed; Stop holds it, for the agent to do.
	DriftStopped = "stopped"
	// DriftFailed: every step passed, an expectation did not (no repair
	// was given: the flow's checks fail).
	DriftFailed = "failed"
	// DriftRepaired: the agent's replacement and every later step and
	// expectation passed; the repaired flow is written.
	DriftRepaired = "repaired"
	// DriftRegression: after the agent's replacement an expectation
	// failed: the product changed, not the test; nothing is written.
	DriftRegression = "regression"
)

// Stop is a flow stopped at its first failing step in a caller's session.
type Stop struct {
	// Flow is the flow with the repairs accepted so far; Source its file's
	// text (nil for a flow given inline).
	Flow   *Flow
	Source []byte
	// Original is the flow file's text as it was read (the diff's left).
	Original []byte
	// Step is the failing step, 1-based, in Flow.
	Step      int
	Error     string
	ErrorCode string
	// Screen is mm_describe_screen's answer when the step failed; Hints
	// its priorKnowledge (what earlier sessions did on this screen).
	Screen json.RawMessage
	Hints  json.RawMessage
	// At is when the run stopped (after its look at the screen): the
	// agent's calls after it are the step's replacement.
	At time.Time
	// Repaired are the steps replaced so far (1-based, in Flow).
	Repaired []int

	// files confine the repaired flow's file (Drifts.Run); bundle is the
	// hand-off folder the flow came from, "" for none.
	files  Files
	bundle string
	// since is where expect.transactions starts counting the flow's
	// transactions (Play).
	since txStart
}

// Outcome is a drift run's or a repair's answer.
type Outcome struct {
	Verdict string `json:"verdict"`
	// Stop is the failing step (DriftStopped).
	Stop *Stop `json:"-"`
	// Failed are the expectations that did not hold (DriftFailed,
	// DriftRegression).
	Failed []string `json:"failed,omitempty"`
	// RepairedPath, Diff and YAML are the repaired flow (DriftRepaired):
	// the file written beside the original (none for an inline flow), the
	// lines that changed, and its text.
	RepairedPath string `json:"repairedPath,omitempty"`
	Diff         string `json:"diff,omitempty"`
	YAML         string `json:"yaml,omitempty"`
	// Vars are the variables the replacement needs (typed text the record
	// withheld).
	Vars []string `json:"vars,omitempty"`
}

// Play runs f's steps from step from (1-based; 0 or 1: all) in c's
// session, which the caller has launched, then checks its expectations.
// On the first failing step it stops and looks at the screen. source is
// f's file text (nil: none).
//
// expect.transactions counts the transactions mined after the run began
// (from the start), or, from a later step, all of the session's: the
// earlier steps' were sent before.
func Play(ctx context.Context, c Caller, f *Flow, source []byte, from int) Outcome {
	st := &Stop{Flow: f, Source: source, Original: source}
	if from <= 1 {
		since, err := f.Expect.firstTx(ctx, c)
		if err != nil {
			return Outcome{Verdict: DriftFailed, Failed: []string{fmt.Sprintf("expect.transactions: the chain's block number before the first step: %v", err)}}
		}
		st.since = since
	}
	return play(ctx, c, st, max(1, from))
}

func play(ctx context.Context, c Caller, st *Stop, from int) Outcome {
	f := st.Flow
	for i := from - 1; i < len(f.Steps); i++ {
		if err := runStep(ctx, c, f.Steps[i]); err != nil {
			st.Step, st.Error = i+1, fmt.Sprintf("step %d %s: %v", i+1, f.Steps[i].ToolName(), err)
			var se *sdk.Error
			if errors.As(err, &se) {
				st.ErrorCode = se.Code
			}
			st.look(ctx, c)
			st.At = time.Now()
			return Outcome{Verdict: DriftStopped, Stop: st}
		}
	}
	var ee *ExpectError
	if err := f.Expect.verifySince(ctx, c, st.since); errors.As(err, &ee) {
		return Outcome{Verdict: DriftFailed, Failed: ee.Failed}
	} else if err != nil {
		return Outcome{Verdict: DriftFailed, Failed: []string{err.Error()}}
	}
	return Outcome{Verdict: DriftPassed}
}

// look takes the screen and its hints; a failed look leaves them empty
// (the stop is still answered).
func (st *Stop) look(ctx context.Context, c Caller) {
	st.Screen, st.Hints = nil, nil
	raw, err := c.Call(ctx, ToolDescribeScreen, map[string]any{})
	if err != nil {
		return
	}
	st.Screen = raw
	st.hints()
}

// hints takes the screen's priorKnowledge as the stop's hints.
func (st *Stop) hints() {
	var d struct {
		PriorKnowledge json.RawMessage `json:"priorKnowledge"`
	}
	if json.Unmarshal(st.Screen, &d) == nil && len(d.PriorKnowledge) > 0 && string(d.PriorKnowledge) != "null" {
		st.Hints = d.PriorKnowledge
	}
}

// Resume takes replacement as the stopped step's replacement (the agent
// already did it in the session), runs the later steps and checks the
// expectations. Only when all pass is the repaired flow written beside
// the original (<name>.repaired.flow.yaml; the original is never
// touched); an expectation that fails is a regression and nothing is
// written; a later step that fails stops again (the repairs so far are
// kept in that Stop).
func Resume(ctx context.Context, c Caller, st *Stop, replacement []Step) (Outcome, error) {
	if err := stable(replacement); err != nil {
		return Outcome{}, err
	}
	next, err := st.splice(replacement)
	if err != nil {
		return Outcome{}, err
	}
	out := play(ctx, c, next, st.Step+len(replacement))
	switch out.Verdict {
	case DriftFailed:
		out.Verdict = DriftRegression
		return out, nil
	case DriftStopped:
		return out, nil
	}
	out.Verdict = DriftRepaired
	if err := next.write(&out); err != nil {
		return Outcome{}, err
	}
	return out, nil
}

// Replacement turns the records of the agent's calls since a stop into
// flow steps, as Export does (looks, failed calls and the chain left out;
// an a11yRef becomes the role and name it was given with; withheld typed
// text a variable).
func Replacement(recs []knowledge.StepRecord) ([]Step, []string, error) {
	f, err := Export("replacement", nil, recs)
	if err != nil {
		return nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "no replacement for the stopped step: %v; do the step in the session (mm_click {testId}, mm_type {selector, text} ...), then call mm_flow_resume again", err)
	}
	return f.Steps, f.Vars, nil
}

// targeted are the tools that act on one element: a replacement names it
// by a stable target.
var targeted = []string{"mm_click", "mm_type", "mm_wait_for", "mm_get_text"}

// stable refuses a replacement that is empty or names an element by
// anything but testId, selector or role and name.
func stable(steps []Step) error {
	if len(steps) == 0 {
		return sdk.Errorf(sdk.CodeInvalidInput, "no replacement for the stopped step: do the step in the session (mm_click {testId: ...}), then call mm_flow_resume")
	}
	for i, s := range steps {
		if _, ok := s.Args["a11yRef"]; ok && s.Target == nil {
			return sdk.Errorf(sdk.CodeInvalidInput, "replacement call %d (%s) names its element by a11yRef only, which is valid for one snapshot: do it again by testId or selector", i+1, s.Tool)
		}
		if !slices.Contains(targeted, s.Tool) || s.Target != nil {
			continue
		}
		if _, ok := s.Args["testId"]; ok {
			continue
		}
		if _, ok := s.Args["selector"]; ok {
			continue
		}
		return sdk.Errorf(sdk.CodeInvalidInput, "replacement call %d (%s) names no element by testId, selector or role and name: do it again with one", i+1, s.Tool)
	}
	return nil
}

// splice is the stop's flow with its failing step replaced.
func (st *Stop) splice(replacement []Step) (*Stop, error) {
	f := *st.Flow
	i := st.Step - 1
	f.Steps = slices.Concat(st.Flow.Steps[:i], replacement, st.Flow.Steps[i+1:])
	next := &Stop{Flow: &f, Original: st.Original, files: st.files, bundle: st.bundle, since: st.since}
	for _, r := range st.Repaired {
		if r > st.Step {
			r += len(replacement) - 1
		}
		next.Repaired = append(next.Repaired, r)
	}
	for k := range replacement {
		next.Repaired = append(next.Repaired, st.Step+k)
	}
	if st.Source != nil {
		src, err := spliceSource(st.Source, i, replacement)
		if err != nil {
			return nil, err
		}
		next.Source = src
	}
	return next, nil
}

// write renders the repaired flow and, for a flow file, writes it beside
// the original.
func (st *Stop) write(out *Outcome) error {
	src := st.Source
	if src == nil {
		b, err := st.Flow.YAML()
		if err != nil {
			return err
		}
		src = b
	}
	out.YAML = string(src)
	if st.Original != nil {
		out.Diff = LineDiff(string(st.Original), string(src))
	}
	if st.Flow.Path == "" {
		return nil
	}
	out.RepairedPath = RepairedPath(st.Flow.Path)
	if err := st.files.Check(out.RepairedPath, "repaired flow"); err != nil {
		return err
	}
	if err := os.WriteFile(out.RepairedPath, src, 0o644); err != nil {
		return sdk.Errorf(sdk.CodeInvalidInput, "write the repaired flow: %v", err)
	}
	return nil
}
