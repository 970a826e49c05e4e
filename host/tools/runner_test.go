package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// fakeObserver counts observations by kind.
type fakeObserver struct {
	mu         sync.Mutex
	full, lite int
}

func (o *fakeObserver) SessionID(context.Context) string { return "mm-test" }
func (o *fakeObserver) Observe(_ context.Context, full bool, _ string) func(context.Context) *observation.Observation {
	return func(context.Context) *observation.Observation { return o.observe(full) }
}

func (o *fakeObserver) observe(full bool) *observation.Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	obs := &observation.Observation{State: observation.State{CurrentScreen: "home"}}
	if full {
		o.full++
		obs.TestIDs = []observation.TestIDItem{{TestID: "x", Tag: "button", Visible: true}}
	} else {
		o.lite++
	}
	return obs
}

type fakeRecorder struct {
	mu    sync.Mutex
	steps []Step
}

func (r *fakeRecorder) Record(_ context.Context, s Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, s)
}

func newTestRunner(t *testing.T) (*Runner, *fakeObserver, *fakeRecorder, *int) {
	t.Helper()
	r := NewRunner(nil)
	obs, rec := &fakeObserver{}, &fakeRecorder{}
	r.SetObserver(obs)
	r.SetRecorder(rec)
	clicks := new(int)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Add(&Tool{Name: "mm_click", Observe: true, Record: true,
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"testId":{"type":"string","minLength":1},"fail":{"type":"boolean"}}}`),
		Handler: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				TestID string
				Fail   bool
			}
			_ = c.Decode(&in)
			*clicks++
			if in.Fail {
				return nil, sdk.Errorf(sdk.CodeClickFailed, "nope")
			}
			return map[string]any{"clicked": true}, nil
		}}))
	must(r.Add(&Tool{Name: "mm_slow", Timeout: 50 * time.Millisecond,
		Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, c *Call) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}))
	must(r.Add(&Tool{Name: "mm_panic", Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, *Call) (any, error) { panic("boom") }}))
	must(r.Add(&Tool{Name: "mm_launch", NoBatch: true, Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, *Call) (any, error) { return nil, nil }}))
	must(r.Add(&Tool{Name: "mm_run_steps", NoBatch: true, Schema: json.RawMessage(`{"type":"object"}`), Handler: RunSteps("mm_run_steps")}))
	return r, obs, rec, clicks
}

// run runs one call and waits for its record.
func run(r *Runner, tool, args string) Envelope {
	env := r.Run(context.Background(), Request{Tool: tool, Args: json.RawMessage(args)}).Envelope
	r.Settle()
	return env
}

func TestEnvelopeAndValidation(t *testing.T) {
	r, _, rec, clicks := newTestRunner(t)
	env := run(r, "mm_click", `{"testId":"a"}`)
	if !env.OK || env.Meta.SessionID != "mm-test" || env.Meta.Timestamp == "" {
		t.Fatalf("envelope %+v", env)
	}
	env = run(r, "mm_click", `{"testId":""}`)
	if env.OK || env.Error.Code != sdk.CodeInvalidInput || env.Error.Details["field"] != "testId" {
		t.Fatalf("invalid input: %+v", env.Error)
	}
	if *clicks != 1 {
		t.Fatalf("an invalid call reached the handler: %d clicks", *clicks)
	}
	if len(rec.steps) != 2 || rec.steps[1].Err.Code != sdk.CodeInvalidInput {
		t.Fatalf("records: %+v", rec.steps)
	}
	if env := run(r, "mm_nope", `{}`); env.Error.Code != sdk.CodeInvalidInput {
		t.Fatalf("unknown tool: %+v", env)
	}
	if env := run(r, "mm_slow", `{}`); env.Error.Code != sdk.CodeTimeout {
		t.Fatalf("deadline: %+v", env.Error)
	}
	if env := run(r, "mm_panic", `{}`); env.Error.Code != sdk.CodeInternal || !strings.Contains(env.Error.Message, "boom") {
		t.Fatalf("panic: %+v", env.Error)
	}
}

func TestPolicies(t *testing.T) {
	cases := map[Policy]struct{ full, lite int }{
		PolicyAll:      {full: 3, lite: 0},
		PolicyNone:     {full: 0, lite: 3},
		PolicyFailures: {full: 1, lite: 2},
	}
	for policy, want := range cases {
		t.Run(string(policy), func(t *testing.T) {
			r, obs, rec, clicks := newTestRunner(t)
			for _, args := range []string{`{"testId":"a"}`, `{"testId":"b","fail":true}`, `{"testId":"c"}`} {
				r.Run(context.Background(), Request{Tool: "mm_click", Args: json.RawMessage(args), Policy: policy})
			}
			r.Settle()
			if obs.full != want.full || obs.lite != want.lite {
				t.Fatalf("full %d lite %d, want %+v", obs.full, obs.lite, want)
			}
			if *clicks != 3 || len(rec.steps) != 3 {
				t.Fatalf("clicks %d records %d", *clicks, len(rec.steps))
			}
			if policy == PolicyFailures && len(rec.steps[1].Observation.TestIDs) == 0 {
				t.Fatal("the failing step has no full observation")
			}
		})
	}
}

func TestRunSteps(t *testing.T) {
	r, obs, rec, clicks := newTestRunner(t)
	batch := `{"includeObservations":"none","steps":[
		{"tool":"mm_click","args":{"testId":"a"}},
		{"tool":"mm_click","args":{"testId":""}},
		{"tool":"mm_launch"},
		{"tool":"mm_run_steps","args":{}},
		{"tool":"mm_click","args":{"testId":"b","fail":true}},
		{"tool":"mm_click"}]}`
	env := run(r, "mm_run_steps", batch)
	if !env.OK {
		t.Fatalf("batch failed: %+v", env.Error)
	}
	b, _ := json.Marshal(env.Result)
	var out struct {
		Steps []struct {
			Tool  string
			OK    bool
			Error *sdk.Error
		}
		Summary BatchSummary
	}
	_ = json.Unmarshal(b, &out)
	if out.Summary != (BatchSummary{OK: false, Total: 6, Succeeded: 2, Failed: 4, DurationMs: out.Summary.DurationMs}) {
		t.Fatalf("summary %+v", out.Summary)
	}
	for i, code := range map[int]string{1: sdk.CodeInvalidInput, 2: sdk.CodeInvalidInput, 3: sdk.CodeInvalidInput, 4: sdk.CodeClickFailed} {
		if out.Steps[i].Error == nil || out.Steps[i].Error.Code != code {
			t.Fatalf("step %d: %+v", i, out.Steps[i])
		}
	}
	if *clicks != 3 {
		t.Fatalf("handler ran %d times, want 3 (invalid steps never reach it)", *clicks)
	}
	if obs.full != 0 {
		t.Fatalf("policy none collected %d full observations", obs.full)
	}
	if len(rec.steps) != 4 { // the three clicks and the invalid one; refused tools are not recorded
		t.Fatalf("%d records", len(rec.steps))
	}
	// stopOnError stops at the first failure.
	env = run(r, "mm_run_steps", `{"stopOnError":true,"steps":[{"tool":"mm_click","args":{"fail":true}},{"tool":"mm_click"}]}`)
	b, _ = json.Marshal(env.Result)
	_ = json.Unmarshal(b, &out)
	if len(out.Steps) != 1 || out.Summary.Total != 2 || out.Summary.Failed != 1 || out.Summary.OK {
		t.Fatalf("stopOnError: %+v", out)
	}
}

func TestRunStepsCancel(t *testing.T) {
	r, _, _, _ := newTestRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel as the first step starts (its progress goes out first).
	var progress []float64
	cancelAtStart := func(done, _ float64, _ string) { progress = append(progress, done); cancel() }
	out := r.Run(ctx, Request{Tool: "mm_run_steps", Progress: cancelAtStart, Args: json.RawMessage(`{"steps":[{"tool":"mm_slow"},{"tool":"mm_slow"},{"tool":"mm_slow"}]}`)})
	if len(progress) != 1 || progress[0] != 0 {
		t.Fatalf("progress %v, want one notification (0 steps done) as the first step started", progress)
	}
	if out.Envelope.OK || out.Envelope.Error.Code != sdk.CodeCancelled {
		t.Fatalf("cancelled batch: %+v", out.Envelope)
	}
	steps, _ := out.Envelope.Error.Details["steps"].([]BatchStep)
	if len(steps) != 1 {
		t.Fatalf("%d steps ran after cancellation, want 1", len(steps))
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal("context not cancelled")
	}
}

// TestHoldBack: a held-back argument never reaches the record, even when
// the call fails validation, unless the handler releases it.
func TestHoldBack(t *testing.T) {
	r := NewRunner(nil)
	rec := &fakeRecorder{}
	r.SetRecorder(rec)
	if err := r.Add(&Tool{Name: "mm_type", Record: true, HoldBack: "text",
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"text":{"type":"string"},"testId":{"type":"string"}}}`),
		Handler: func(_ context.Context, c *Call) (any, error) {
			var in struct{ Text, TestID string }
			_ = c.Decode(&in)
			return typed{safe: in.TestID == "amount"}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	run(r, "mm_type", `{"text":"secret words here","testId":"srp","bogus":1}`)
	run(r, "mm_type", `{"text":"secret words here","testId":"srp"}`)
	run(r, "mm_type", `{"text":"0.5","testId":"amount"}`)
	for i, s := range rec.steps[:2] {
		if strings.Contains(string(s.Input), "secret") || !s.TextRedacted || s.TextLength == nil || *s.TextLength != 17 {
			t.Fatalf("step %d leaked or lost the length: %s %+v", i, s.Input, s)
		}
	}
	if s := rec.steps[2]; s.TextRedacted || !strings.Contains(string(s.Input), "0.5") {
		t.Fatalf("released text not recorded: %s", s.Input)
	}
}

// gatedObserver blocks every observation until released, and reports
// whether its context was still live.
type gatedObserver struct {
	started chan struct{}
	release chan struct{}
	ctxErr  error
}

func (o *gatedObserver) SessionID(context.Context) string { return "mm-test" }
func (o *gatedObserver) Observe(_ context.Context, full bool, _ string) func(context.Context) *observation.Observation {
	return func(ctx context.Context) *observation.Observation {
		o.started <- struct{}{}
		<-o.release
		o.ctxErr = ctx.Err()
		return &observation.Observation{State: observation.State{CurrentScreen: "after"}}
	}
}

// gateFree says whether no observation of the stdio owner holds its page
// gate.
func gateFree(r *Runner) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return r.gate(ctx).wait(ctx) == nil
}

// TestAnswerFirstObserveAfter: a single call answers before its
// observation is taken; the observation holds the page gate (the next
// call that is not read-only waits for it) and is recorded even when the
// client has gone.
func TestAnswerFirstObserveAfter(t *testing.T) {
	r, _, rec, clicks := newTestRunner(t)
	// started has room for one signal: an observation reports its start
	// without waiting for the test, then holds until released.
	obs := &gatedObserver{started: make(chan struct{}, 1), release: make(chan struct{})}
	r.SetObserver(obs)
	ctx, hangUp := context.WithCancel(context.Background())
	answered := make(chan Envelope)
	go func() {
		answered <- r.Run(ctx, Request{Tool: "mm_click", Args: json.RawMessage(`{"testId":"a"}`)}).Envelope
	}()
	// The observation is held until release: a call that waited for it
	// would never answer. (The bound only keeps a broken runner from
	// hanging the suite.)
	var env Envelope
	select {
	case env = <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not answer while its observation was held")
	}
	if !env.OK || *clicks != 1 {
		t.Fatalf("answer %+v, %d clicks", env, *clicks)
	}
	hangUp() // the client goes away before the observation
	<-obs.started
	if gateFree(r) {
		t.Fatal("the page gate is free while the call is still being observed")
	}
	if len(rec.steps) != 0 {
		t.Fatal("recorded before the observation")
	}
	close(obs.release)
	r.Settle()
	if len(rec.steps) != 1 || rec.steps[0].Observation.State.CurrentScreen != "after" {
		t.Fatalf("records after settling: %+v", rec.steps)
	}
	if obs.ctxErr != nil {
		t.Fatalf("the observation ran with a dead context: %v", obs.ctxErr)
	}
	if !gateFree(r) {
		t.Fatal("the page gate is still held after the record was written")
	}
	// A batch step is observed before the batch answers.
	go func() { answered <- run(r, "mm_run_steps", `{"steps":[{"tool":"mm_click","args":{"testId":"b"}}]}`) }()
	env = <-answered
	select {
	case <-obs.started:
	default:
		t.Fatal("the batch answered without observing its step")
	}
	if !env.OK || len(rec.steps) != 2 {
		t.Fatalf("batch %+v, %d records", env, len(rec.steps))
	}
}

// A tool that gathered part of its observation (a snapshot's tree) answers
// without the state; the record gets both.
func TestStateLaterFillsTheRecord(t *testing.T) {
	r, obs, rec, _ := newTestRunner(t)
	nodes := []observation.A11yNode{{Ref: "e1", Role: "button", Name: "Go", Path: []string{}}}
	if err := r.Add(&Tool{Name: "mm_snap", Record: true, Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(_ context.Context, c *Call) (any, error) {
			return gathered{obs: &observation.Observation{A11y: observation.A11y{Nodes: nodes}}}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	if env := run(r, "mm_snap", `{}`); !env.OK {
		t.Fatalf("%+v", env.Error)
	}
	got := rec.steps[len(rec.steps)-1].Observation
	if got == nil || got.State.CurrentScreen != "home" || len(got.A11y.Nodes) != 1 || got.A11y.Nodes[0].Name != "Go" {
		t.Fatalf("record observation %+v", got)
	}
	if obs.lite != 1 || obs.full != 0 {
		t.Errorf("observations lite %d full %d, want one state read", obs.lite, obs.full)
	}
}

// typed is the result of a type call: its text is safe or not.
type typed struct{ safe bool }

func (r typed) TextSafe() bool { return r.safe }

// gathered is the result of a call that gathered part of its
// observation, with a state read ahead when ahead is set.
type gathered struct {
	obs   *observation.Observation
	ahead func(context.Context) (observation.State, bool)
}

func (r gathered) RecordObservation() (*observation.Observation, bool) { return r.obs, true }

func (r gathered) RecordStateAhead(ctx context.Context) (observation.State, bool) {
	if r.ahead == nil {
		return observation.State{}, false
	}
	return r.ahead(ctx)
}

// shot is a result that tells the record everything a result can.
type shot struct {
	Path string `json:"path"`
}

func (shot) RecordTarget() map[string]string { return map[string]string{"testId": "logo"} }
func (r shot) RecordScreenshot() *ScreenshotRef {
	return &ScreenshotRef{Path: r.Path, Width: 2, Height: 1}
}
func (shot) ResultImages() []Image                               { return []Image{{MIMEType: "image/png", Base64: "iVBO"}} }
func (shot) RecordVisual() any                                   { return map[string]any{"status": "match"} }
func (shot) RecordLabels() []string                              { return []string{"visual:match:logo"} }
func (shot) RecordObservation() (*observation.Observation, bool) { return nil, false }

// TestResultTellsTheRecord: what a handler's result implements reaches
// the record (target, screenshot, labels) and the client
// (images); a failed call's result still gives its target, and its images
// never reach the client.
func TestResultTellsTheRecord(t *testing.T) {
	r, _, rec, _ := newTestRunner(t)
	fail := false
	if err := r.Add(&Tool{Name: "mm_shot", Record: true, Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, *Call) (any, error) {
			if fail {
				return shot{}, sdk.Errorf(sdk.CodeTargetNotFound, "no logo")
			}
			return shot{Path: "a.png"}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	out := r.Run(context.Background(), Request{Tool: "mm_shot", Args: json.RawMessage(`{}`)})
	r.Settle()
	s := rec.steps[len(rec.steps)-1]
	if !out.Envelope.OK || len(out.Images) != 1 || s.Target["testId"] != "logo" || s.Screenshot == nil || s.Screenshot.Path != "a.png" ||
		len(s.Labels) != 1 || s.Labels[0] != "visual:match:logo" {
		t.Fatalf("outcome %+v, step %+v", out, s)
	}
	fail = true
	out = r.Run(context.Background(), Request{Tool: "mm_shot", Args: json.RawMessage(`{}`)})
	r.Settle()
	s = rec.steps[len(rec.steps)-1]
	if out.Envelope.OK || out.Envelope.Result != nil || len(out.Images) != 0 || s.Target["testId"] != "logo" || s.Err == nil {
		t.Fatalf("failed call: outcome %+v, step %+v", out, s)
	}
}
