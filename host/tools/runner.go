package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/internal/redact"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Observer collects observations for the runner. The browser session
// implements it.
type Observer interface {
	// SessionID is the active session's id, or "".
	SessionID(ctx context.Context) string
	// Observe prepares the observation of a step record: the state, and
	// with full the visible testids and the trimmed tree too. It takes what
	// it needs from the session (the session, the agent's refs) at once,
	// under the session lock; the returned function reads the page, which
	// may happen while a read-only call runs (see Tool.ReadOnly). It never
	// replaces the refs the agent was given; ref is the a11yRef the call
	// named ("" for none), and the tree names that ref's element with it.
	// The function returns nil when there is no session to observe.
	Observe(ctx context.Context, full bool, ref string) func(context.Context) *observation.Observation
}

// Classifier is an Observer that knows when a call failed because a part
// of its session died under it (Chrome killed mid-call): Classify answers
// that part's code for err, or err unchanged.
type Classifier interface {
	Classify(ctx context.Context, tool string, err error) error
}

// Recorder receives one Step per recorded call (the knowledge store).
type Recorder interface {
	Record(ctx context.Context, s Step)
}

// Step is what the runner knows about a finished call.
type Step struct {
	SessionID string
	Tool      string
	// Label is the tool's class (Tool.Label).
	Label string
	// Input is the call's raw input: the recorder withholds its secrets.
	Input        json.RawMessage
	Target       map[string]string
	TextRedacted bool
	TextLength   *int
	// TextKept says the top-level text argument may be stored (the tool
	// released it); Withheld are secrets to mask wherever they are echoed.
	TextKept    bool
	Withheld    []string
	Started     time.Time
	Duration    time.Duration
	Err         *sdk.Error
	Observation *observation.Observation
	Screenshot  *ScreenshotRef
	Labels      []string
	// Confirmation is the call's confirmation block (Confirmed), nil for
	// none.
	Confirmation any
}

// Runner runs tool calls. It is safe for concurrent use: calls are
// serialized on the session, in arrival order; a tool marked NoSession
// never waits for the session lock.
type Runner struct {
	log      hclog.Logger
	locksMu  sync.Mutex
	locks    map[string]chan struct{} // the session lock of each owner: held while it holds a value
	gates    map[string]*pageGate     // by owner: the observations in progress (gate.go)
	holders  map[string]*holder       // by owner: the Exclusive call holding its lock (busy.go)
	tools    map[string]*entry
	order    []string
	observer Observer
	recorder Recorder

	afterMu sync.Mutex
	after   map[string]chan struct{} // by owner: closed when its last call's record is written
	writer  stepWriter
	// grace is how long an observation waits for the client's next call
	// (observeGrace; see pageGate).
	grace time.Duration
	// delivery bounds how long observations give way to a capture's
	// answer (deliveryWait; see delivered).
	delivery time.Duration
}

type entry struct {
	tool     *Tool
	schema   *sdk.Schema
	defaults json.RawMessage
}

// NewRunner returns an empty runner.
func NewRunner(log hclog.Logger) *Runner {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Runner{log: log, tools: map[string]*entry{}, locks: map[string]chan struct{}{}, gates: map[string]*pageGate{}, holders: map[string]*holder{}, after: map[string]chan struct{}{}, grace: observeGrace, delivery: deliveryWait}
}

// SetObserver sets the observer; nil disables observations.
func (r *Runner) SetObserver(o Observer) { r.observer = o }

// SetRecorder sets the recorder; nil disables step records.
func (r *Runner) SetRecorder(rec Recorder) { r.recorder = rec }

// Add registers a tool, compiling its schema. A duplicate name or a bad
// schema is an error.
func (r *Runner) Add(t *Tool) error {
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %s registered twice", t.Name)
	}
	s, err := sdk.CompileSchema(t.Name, t.Schema)
	if err != nil {
		return err
	}
	defaults, err := sdk.SchemaDefaults(t.Schema)
	if err != nil {
		return fmt.Errorf("tool %s: %w", t.Name, err)
	}
	r.tools[t.Name] = &entry{tool: t, schema: s, defaults: defaults}
	r.order = append(r.order, t.Name)
	return nil
}

// Tools lists the registered tools in registration order.
func (r *Runner) Tools() []*Tool {
	out := make([]*Tool, len(r.order))
	for i, n := range r.order {
		out[i] = r.tools[n].tool
	}
	return out
}

// Lookup returns a tool by name.
func (r *Runner) Lookup(name string) (*Tool, bool) {
	e, ok := r.tools[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Names lists the registered tool names, sorted.
func (r *Runner) Names(filter func(*Tool) bool) []string {
	var out []string
	for n, e := range r.tools {
		if filter == nil || filter(e.tool) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// observeBudget bounds the observation made after a call.
const observeBudget = 5 * time.Second

// Request is one call as it reaches the runner.
type Request struct {
	Tool     string
	Args     json.RawMessage
	Policy   Policy
	Progress func(done, total float64, message string)
}

// Outcome is a finished call: its envelope and any images.
type Outcome struct {
	Envelope Envelope
	Images   []Image
}

// lock is the session lock of the call's owner (see Owner): calls of one
// owner run one at a time, owners run side by side.
func (r *Runner) lock(ctx context.Context) chan struct{} {
	owner := Owner(ctx)
	r.locksMu.Lock()
	defer r.locksMu.Unlock()
	l, ok := r.locks[owner]
	if !ok {
		l = make(chan struct{}, 1)
		r.locks[owner] = l
	}
	return l
}

// Run runs one call under its owner's session lock (without it for a
// NoSession tool) and answers as soon as the action is done. The call's
// observation is made right after, off the lock but holding a lease on the
// owner's page gate: the next call runs meanwhile only when it is
// read-only (Tool.ReadOnly); any other call first waits for the
// observation, so the record shows the state right after its own call. The
// record is written in call order (stepWriter: its place is taken under
// the lock), and a client that hangs up loses nothing. A call cancelled
// while it waits for the lock or the gate answers MM_CANCELLED and never
// runs.
func (r *Runner) Run(ctx context.Context, req Request) Outcome {
	if err := OwnerErr(ctx); err != nil {
		return r.finish(ctx, time.Now(), nil, nil, err)
	}
	readOnly := r.ReadOnly(req.Tool, req.Args)
	if e, ok := r.tools[req.Tool]; ok && e.tool.NoSession {
		out, record := r.run(ctx, req, readOnly)
		if record != nil {
			record()()
		}
		return out
	}
	start := time.Now()
	lock := r.lock(ctx)
	select {
	case lock <- struct{}{}:
	default:
		if err := r.busy(ctx, req.Tool); err != nil {
			return r.finish(ctx, start, nil, nil, err)
		}
		r.log.Trace("waiting for the session lock", "tool", req.Tool)
		select {
		case lock <- struct{}{}:
		case <-ctx.Done():
			return r.finish(ctx, start, nil, nil, cancelled(req.Tool, ctx, "while it waited for the session"))
		}
	case <-ctx.Done():
		return r.finish(ctx, start, nil, nil, cancelled(req.Tool, ctx, "while it waited for the session"))
	}
	gate := r.gate(ctx)
	if ctx.Err() == nil && !readOnly {
		if gate.wait(ctx) != nil {
			<-lock
			return r.finish(ctx, start, nil, nil, cancelled(req.Tool, ctx, "while it waited for the previous call's record"))
		}
	}
	if ctx.Err() != nil {
		<-lock
		return r.finish(ctx, start, nil, nil, cancelled(req.Tool, ctx, "while it waited for the session"))
	}
	if r.exclusive(req.Tool) {
		req.Progress = r.hold(ctx, req)
	}
	var endCapture func()
	if readOnly && r.capture(req.Tool) {
		endCapture = gate.capturing() // the observations in progress give way to it
	} else {
		gate.hurry()
	}
	out, record := r.run(ctx, req, readOnly)
	if endCapture != nil {
		r.delivered(ctx, endCapture)
	}
	r.unhold(ctx)
	if record == nil {
		<-lock
		return out
	}
	// What the observation needs from the session is taken, and the
	// record's place in call order, before the lock is free.
	observe := record()
	prev, observed := gate.enter()
	done := make(chan struct{})
	r.afterMu.Lock()
	r.after[Owner(ctx)] = done
	r.afterMu.Unlock()
	answered := time.Now()
	<-lock
	go func() {
		defer close(done)
		written := func() <-chan struct{} {
			defer gate.leave()
			defer observed()
			gate.giveWay(answered, r.grace, prev)
			return observe()
		}()
		<-written
	}()
	return out
}

// deliveryWait bounds how long the observations give way to a capture's
// answer after the capture (see delivered).
const deliveryWait = 100 * time.Millisecond

// delivered calls endCapture once the call's answer is written to the
// stdio transport (the next message written after its handler returned),
// at the latest r.delivery after now; at once on another transport. A
// capture's answer is its image, which the transport encodes and writes
// after the capture: the observations that give way to the capture keep
// off that too, as the client waits for it.
func (r *Runner) delivered(ctx context.Context, endCapture func()) {
	if w := notifier(ctx); w != nil {
		w.afterNextWrite(endCapture, r.delivery)
		return
	}
	endCapture()
}

// capture reports whether tool is a capture (Tool.Capture).
func (r *Runner) capture(tool string) bool {
	e, ok := r.tools[tool]
	return ok && e.tool.Capture
}

// Settle waits until the step record of every call so far is written
// (it is made after the call answers). A session call never needs it (one
// that is not read-only waits for the observations, see pageGate); Close
// and readers that skip the lock (NoSession tools) do.
func (r *Runner) Settle() {
	r.hurryAll()
	r.afterMu.Lock()
	pending := make([]chan struct{}, 0, len(r.after))
	for _, done := range r.after {
		pending = append(pending, done)
	}
	r.afterMu.Unlock()
	for _, done := range pending {
		<-done
	}
	r.written()
}

// cancelled is the error of a call whose caller gave up: MM_CANCELLED
// (or MM_TIMEOUT when the caller's own deadline passed), whatever the
// call was doing.
func cancelled(tool string, ctx context.Context, when string) *sdk.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return sdk.Errorf(sdk.CodeTimeout, "%s: the caller's deadline passed %s", tool, when)
	}
	return sdk.Errorf(sdk.CodeCancelled, "%s was cancelled %s", tool, when)
}

// RunNested runs a call from inside another call that already holds the
// session lock (mm_run_steps). It is observed before it returns (a
// batch's steps follow the batch's policy) and its record is queued behind
// the earlier ones.
func (c *Call) RunNested(ctx context.Context, req Request) Outcome {
	out, record := c.runner.run(ctx, req, c.runner.ReadOnly(req.Tool, req.Args))
	if record != nil {
		record()()
	}
	return out
}

// run runs one call and returns its outcome and, when the call is
// recorded, its record (nil otherwise): a function the caller runs under
// the session lock, which returns the rest of the record (see record).
// readOnly is r.ReadOnly of the call.
func (r *Runner) run(ctx context.Context, req Request, readOnly bool) (Outcome, func() func() <-chan struct{}) {
	start := time.Now()
	ctx = withCall(ctx)
	if !readOnly {
		changes.Add(1)
		defer changes.Add(1)
	}
	e, ok := r.tools[req.Tool]
	if !ok {
		return r.finish(ctx, start, nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "unknown tool %q", req.Tool).
			WithDetails(map[string]any{"available": r.Names(nil)})), nil
	}
	args := req.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	call := &Call{Tool: e.tool, Args: args, Policy: req.Policy, Progress: req.Progress, runner: r, defaults: e.defaults}
	if r.observer != nil {
		call.sessionAtStart = r.observer.SessionID(ctx)
	}
	if call.Policy == "" {
		call.Policy = PolicyAll
	}
	if call.Progress == nil {
		call.Progress = func(float64, float64, string) {}
	}
	r.log.Trace("running", "tool", req.Tool)
	call.holdBack()
	// The record outlives the call's context: a client that hangs up or a
	// spent deadline must not lose it.
	rctx := context.WithoutCancel(ctx)
	recordFn := func(mmErr *sdk.Error, took time.Duration) func() func() <-chan struct{} {
		if !e.tool.Record || r.recorder == nil {
			return nil
		}
		return func() func() <-chan struct{} { return r.record(rctx, call, start, took, mmErr) }
	}
	if verr := e.schema.Validate(req.Tool, args); verr != nil {
		out := r.finish(ctx, start, call, nil, verr)
		return out, recordFn(verr, time.Since(start))
	}
	timeout := e.tool.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if e.tool.Record && r.recorder != nil {
		ctx = context.WithValue(ctx, recordedKey{}, true)
	}
	if e.tool.Settle {
		r.Settle()
	}
	res, err := r.invoke(ctx, call)
	call.take(res)
	if cl, ok := r.observer.(Classifier); ok && err != nil {
		err = cl.Classify(ctx, req.Tool, err)
	}
	var mmErr *sdk.Error
	if err != nil {
		mmErr = sdk.AsError(err)
		switch {
		case caller.Err() != nil && mmErr.Code != sdk.CodeCancelled:
			// The caller gave up: whatever the handler saw (a wait that
			// ended early, a page that did not load), the call was
			// cancelled.
			mmErr = cancelled(req.Tool, caller, "by the client").
				WithDetails(map[string]any{"interrupted": mmErr.Code})
		case mmErr.Code == sdk.CodeInternal && errors.Is(err, context.DeadlineExceeded):
			mmErr = sdk.Errorf(sdk.CodeTimeout, "%s did not finish within %s", req.Tool, timeout)
		}
	}
	took := time.Since(start)
	out := r.finish(ctx, start, call, res, mmErr)
	if mmErr == nil {
		out.Images = call.images
	}
	return out, recordFn(mmErr, took)
}

// invoke runs the handler, turning a panic into an internal error so that a
// bug in one tool never takes the host down.
func (r *Runner) invoke(ctx context.Context, c *Call) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("tool panicked", "tool", c.Tool.Name, "panic", p, "stack", string(debug.Stack()))
			err = sdk.Errorf(sdk.CodeInternal, "%s failed unexpectedly: %v", c.Tool.Name, p)
		}
	}()
	return c.Tool.Handler(ctx, c)
}

// record prepares c's step record under the session lock: what its
// observation needs from the session, and its place among the owner's
// records. The function it returns (run off the lock, beside read-only
// calls) observes the page as the policy asks and queues the step for the
// recorder (write); its channel closes once the step is written. took is
// the action's own duration, observation excluded. A panic in either part
// is logged and leaves the record out, never the records after it.
func (r *Runner) record(ctx context.Context, c *Call, start time.Time, took time.Duration, mmErr *sdk.Error) (rest func() <-chan struct{}) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("recording a step panicked", "tool", c.Tool.Name, "panic", p, "stack", string(debug.Stack()))
			rest = func() <-chan struct{} { return closed }
		}
	}()
	observe := r.observation(ctx, c, mmErr)
	// The session after the call (mm_launch's new one), else the one it
	// ran in (mm_cleanup's); "" when the call had none.
	sid := c.sessionAtStart
	if r.observer != nil {
		if now := r.observer.SessionID(ctx); now != "" {
			sid = now
		}
	}
	// The step carries no secret: the input is withheld by the one rule
	// (package redact) before it leaves the runner.
	keep := c.Tool.HoldBack != "" && !c.textRedacted
	var input json.RawMessage
	var secrets []string
	var m map[string]any
	if json.Unmarshal(c.Args, &m) == nil {
		m, secrets = redact.Args(m, keep)
		input, _ = json.Marshal(m)
	}
	if c.held != "" {
		secrets = append(secrets, c.held)
	}
	step := Step{
		SessionID: sid, Tool: c.Tool.Name, Label: c.Tool.Label, Input: input, Target: c.target,
		TextRedacted: c.textRedacted, TextLength: c.textLength, TextKept: keep,
		Withheld: secrets,
		Started:  start, Duration: took, Err: mmErr,
		Screenshot: c.screenshot, Labels: c.labels, Confirmation: c.confirmation,
	}
	slot := r.reserve()
	return func() <-chan struct{} {
		ok := false
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("observing a step panicked", "tool", c.Tool.Name, "panic", p, "stack", string(debug.Stack()))
			}
			if !ok {
				r.write(ctx, slot, nil)
			}
		}()
		step.Observation = observe()
		ok = true
		return r.write(ctx, slot, &step)
	}
}

// observation is the observation of c's record as the policy asks: what it
// needs from the session is taken now; the page is read when the returned
// function runs.
func (r *Runner) observation(ctx context.Context, c *Call, mmErr *sdk.Error) func() *observation.Observation {
	obs := c.observation
	if r.observer == nil || (obs != nil && !c.stateLater) {
		return func() *observation.Observation { return obs }
	}
	full, ref := false, ""
	if obs == nil {
		full = c.Tool.Observe && (c.Policy == PolicyAll || (c.Policy == PolicyFailures && mmErr != nil))
		ref = c.target["a11yRef"]
	}
	read := r.observer.Observe(ctx, full, ref)
	return func() *observation.Observation {
		// The observation has its own short budget: the call's deadline
		// may be spent (a wait that timed out) and the call has answered.
		octx, cancel := context.WithTimeout(ctx, observeBudget)
		defer cancel()
		if obs != nil && c.stateAhead != nil {
			if st, ok := c.stateAhead(octx); ok {
				obs.State = st
				return obs
			}
		}
		got := read(octx)
		if obs == nil {
			return got
		}
		// stateLater: the state of what the tool gathered.
		if got != nil {
			obs.State = got.State
		}
		return obs
	}
}

// closed is a closed channel: nothing to wait for.
var closed = func() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (r *Runner) finish(ctx context.Context, start time.Time, c *Call, res any, mmErr *sdk.Error) Outcome {
	env := Envelope{OK: mmErr == nil, Meta: Meta{Timestamp: Timestamp(start), DurationMs: time.Since(start).Milliseconds()}}
	if r.observer != nil {
		env.Meta.SessionID = r.observer.SessionID(ctx)
	}
	if mmErr != nil {
		env.Error = mmErr
	} else {
		if res == nil {
			res = struct{}{}
		}
		env.Result = res
	}
	return Outcome{Envelope: env}
}
