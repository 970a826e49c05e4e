package flows

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/sdk"
)

// DriftSession is the caller's own session, as mm_flow_run and
// mm_flow_resume see it.
type DriftSession interface {
	Caller
	// Active says whether the caller has a session running.
	Active(ctx context.Context) bool
	// Since are the records of the session's calls that started after t,
	// in order.
	Since(ctx context.Context, t time.Time) ([]knowledge.StepRecord, error)
	// Client is the calling client: "" the host's local one (stdio), else
	// a client of mmcp serve --http (its owner), whose files are confined
	// to the workspace and whose handles only it resumes.
	Client() string
}

// Drifts keeps the stopped flows of mm_flow_run for mm_flow_resume, by
// handle, each with the client it belongs to.
type Drifts struct {
	// Workspace is the host's workspace ("" for none): relative paths
	// resolve against it, and a remote client's files stay inside it.
	Workspace string

	mu    sync.Mutex
	stops map[string]held
}

// held is a stopped flow and the client whose run stopped.
type held struct {
	stop  *Stop
	owner string
}

// files are the file rules of s's client.
func (d *Drifts) files(s DriftSession) Files {
	return Files{Workspace: d.Workspace, Confined: s.Client() != ""}
}

// RunInput is mm_flow_run's input: one of path, flow (a flow document)
// and handoff (a bundle folder), and the step to start at.
type RunInput struct {
	Path    string `json:"path,omitempty"`
	Flow    string `json:"flow,omitempty"`
	Handoff string `json:"handoff,omitempty"`
	From    int    `json:"from,omitempty"`
}

// Check refuses an input that names no flow or more than one.
func (in RunInput) Check() error {
	n := 0
	for _, s := range []string{in.Path, in.Flow, in.Handoff} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return sdk.Errorf(sdk.CodeInvalidInput, "give exactly one of path (a flow file), flow (a flow document) and handoff (a bundle folder of mmcp test --handoff)")
	}
	return nil
}

// ResumeInput is mm_flow_resume's input.
type ResumeInput struct {
	Handle string `json:"handle"`
}

// StoppedStep is the step a run stopped at.
type StoppedStep struct {
	// Index is 1-based.
	Index     int            `json:"index"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args,omitempty"`
	Target    *Target        `json:"target,omitempty"`
	Confirm   *ConfirmStep   `json:"confirm,omitempty"`
	Error     string         `json:"error"`
	ErrorCode string         `json:"errorCode,omitempty"`
}

// DriftAnswer is mm_flow_run's and mm_flow_resume's answer.
type DriftAnswer struct {
	// Verdict: passed, stopped, failed (mm_flow_run); repaired,
	// regression, stopped (mm_flow_resume).
	Verdict string `json:"verdict"`
	Flow    string `json:"flow"`
	Path    string `json:"path,omitempty"`
	// Stopped, Screen, Hints and Handle: the failing step, the screen now
	// (mm_describe_screen's answer), what earlier sessions did on it, and
	// the handle mm_flow_resume takes (verdict stopped).
	Stopped *StoppedStep    `json:"stopped,omitempty"`
	Screen  json.RawMessage `json:"screen,omitempty"`
	Hints   json.RawMessage `json:"hints,omitempty"`
	Handle  string          `json:"handle,omitempty"`
	// Replacement are the steps taken from the agent's calls
	// (mm_flow_resume).
	Replacement []Step `json:"replacement,omitempty"`
	// Failed are the expectations that did not hold (failed, regression).
	Failed []string `json:"failed,omitempty"`
	// RepairedPath, Diff and Vars: the repaired flow written beside the
	// original, what changed, and the variables it needs (repaired).
	RepairedPath string   `json:"repairedPath,omitempty"`
	Diff         string   `json:"diff,omitempty"`
	YAML         string   `json:"yaml,omitempty"`
	Vars         []string `json:"vars,omitempty"`
	// Next says what to do.
	Next string `json:"next"`
}

// Run runs a flow in the caller's session, launching it (with the flow's
// launch arguments) when there is none, and stops at its first failing
// step.
func (d *Drifts) Run(ctx context.Context, s DriftSession, in RunInput) (*DriftAnswer, error) {
	files := d.files(s)
	f, src, bundle, err := in.open(files)
	if err != nil {
		return nil, err
	}
	if in.From > len(f.Steps) {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "from %d: flow %q has %d steps", in.From, f.Name, len(f.Steps))
	}
	if !s.Active(ctx) {
		launch := map[string]any{"goal": "flow: " + f.Name}
		for k, v := range f.Launch {
			launch[k] = v
		}
		if _, err := s.Call(ctx, ToolLaunch, launch); err != nil {
			return nil, err
		}
	}
	out := Play(ctx, s, f, src, in.From)
	if out.Stop != nil {
		out.Stop.files, out.Stop.bundle = files, bundle
	}
	return d.answer(out, f, src, s.Client()), nil
}

// Resume takes the agent's calls since the stop of handle as the failed
// step's replacement and continues the flow (see the package func
// Resume).
func (d *Drifts) Resume(ctx context.Context, s DriftSession, in ResumeInput) (*DriftAnswer, error) {
	d.mu.Lock()
	h, ok := d.stops[in.Handle]
	d.mu.Unlock()
	if !ok {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "no stopped flow with handle %q (a handle lasts until its flow is repaired or found a regression, in this host): run the flow again with mm_flow_run", in.Handle)
	}
	if h.owner != s.Client() {
		return nil, sdk.Errorf(sdk.CodeHandleNotOwned, "handle %q belongs to another client of this host, whose mm_flow_run stopped there: only that client resumes it; run the flow in your own session with mm_flow_run", in.Handle)
	}
	st := h.stop
	recs, err := s.Since(ctx, st.At)
	if err != nil {
		return nil, err
	}
	repl, vars, err := Replacement(recs)
	if err != nil {
		return nil, err
	}
	out, err := Resume(ctx, s, st, repl)
	if err != nil {
		return nil, err
	}
	a := d.answer(out, st.Flow, st.Source, h.owner)
	a.Replacement, a.Vars = repl, vars
	if out.Verdict != DriftStopped {
		d.mu.Lock()
		delete(d.stops, in.Handle)
		d.mu.Unlock()
		if err := recordRepair(st, out); err != nil {
			a.Next += "; the verdict could not be recorded in the hand-off bundle, so the run's report will not count it: " + err.Error()
		}
	}
	return a, nil
}

// recordRepair writes a repair's verdict into the hand-off bundle the
// stopped flow came from (none: nothing), for the run's report to count.
func recordRepair(st *Stop, out Outcome) error {
	if st.bundle == "" {
		return nil
	}
	p := filepath.Join(st.bundle, RepairFile)
	if err := st.files.Check(p, "repair record"); err != nil {
		return err
	}
	r := Repair{Verdict: out.Verdict, RepairedPath: out.RepairedPath, Failed: FlowVars(st.Source).hideAll(out.Failed), At: time.Now().UTC()}
	return writeRepair(st.bundle, r)
}

// answer is an outcome as the tools answer it; a stop is kept by a new
// handle of owner. src is the flow file's text. Nothing in the answer
// carries a variable's value: the step's args are the flow file's, with
// their ${VAR}s, and the value of every variable the flow uses is put
// back as ${VAR} in the error, screen, hints and failed expectations.
func (d *Drifts) answer(out Outcome, f *Flow, src []byte, owner string) *DriftAnswer {
	a := &DriftAnswer{Verdict: out.Verdict, Flow: f.Name, Path: f.Path, Failed: out.Failed,
		RepairedPath: out.RepairedPath, Diff: out.Diff, YAML: out.YAML}
	vars := FlowVars(src)
	a.Failed = vars.hideAll(a.Failed)
	switch out.Verdict {
	case DriftPassed:
		a.Next = "every step and expectation passed: nothing to repair"
	case DriftFailed:
		a.Next = "every step passed but the expectations above did not hold: the product changed, or the flow's expectations are out of date (edit them by hand)"
	case DriftRegression:
		a.Next = "after the replacement an expectation failed: a regression (the product changed, not the test); nothing was written"
	case DriftRepaired:
		a.Next = "the repaired flow passed: review the diff, then move it over the original"
		if out.RepairedPath == "" {
			a.Next = "the repaired flow passed; it is the flow given inline, so nothing was written: its text is in yaml"
		}
	case DriftStopped:
		st := out.Stop
		step := st.Flow.Steps[st.Step-1]
		if written, ok := stepAsWritten(st.Source, st.Step-1); ok {
			step = written
		}
		a.Stopped = &StoppedStep{Index: st.Step, Tool: step.ToolName(), Args: step.Args, Target: step.Target, Confirm: step.Confirm,
			Error: vars.Hide(st.Error), ErrorCode: st.ErrorCode}
		a.Screen, a.Hints = vars.HideJSON(st.Screen), vars.HideJSON(st.Hints)
		a.Handle = newHandle()
		d.mu.Lock()
		if d.stops == nil {
			d.stops = map[string]held{}
		}
		d.stops[a.Handle] = held{stop: st, owner: owner}
		d.mu.Unlock()
		a.Next = "do this step in the session by a stable target (mm_click {testId}, mm_type {selector, text}, or a ref from mm_describe_screen, which is kept as its role and name), then call mm_flow_resume {handle}"
	}
	return a
}

func newHandle() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "drift-" + hex.EncodeToString(b)
}

// open reads the flow the input names, with its text; its path and
// hand-off folder, and the flow file a bundle names, as files allows.
// The hand-off folder is returned too ("" for none).
func (in RunInput) open(files Files) (*Flow, []byte, string, error) {
	if err := in.Check(); err != nil {
		return nil, nil, "", err
	}
	switch {
	case in.Handoff != "":
		dir, err := files.Resolve(in.Handoff, "hand-off folder")
		if err != nil {
			return nil, nil, "", err
		}
		_, f, src, err := OpenHandoff(dir)
		if err != nil {
			return nil, nil, "", err
		}
		if err := files.Check(f.Path, "flow file of the hand-off"); err != nil {
			return nil, nil, "", err
		}
		return f, src, dir, nil
	case in.Flow != "":
		// A remote client's flow text would read the host's environment
		// (${AWS_SECRET_ACCESS_KEY} typed into a page, put in a URL).
		if m := envRef.FindString(in.Flow); m != "" && files.Confined {
			return nil, nil, "", sdk.Errorf(sdk.CodeInvalidInput, "the flow given inline uses %s: over HTTP an inline flow cannot read the host's environment variables; write the value in the flow, or put the flow in a file in the workspace and give its path", m)
		}
		f, err := Parse([]byte(in.Flow))
		if err != nil {
			return nil, nil, "", err
		}
		return f, []byte(in.Flow), "", nil
	}
	path, err := files.Resolve(in.Path, "flow file")
	if err != nil {
		return nil, nil, "", err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, "", sdk.Errorf(sdk.CodeInvalidInput, "flow file: %v", err)
	}
	f, err := Parse(src)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	return f, src, "", nil
}
