package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// Checker is a tool input that checks itself beyond its schema (a field
// one action needs, a value's form): Add runs Check before the handler,
// so invalid input answers MM_INVALID_INPUT whatever the session's state
// (before the handler looks the session up).
type Checker interface {
	Check() error
}

// Handler runs one tool. It returns the result value (any JSON-marshalable
// value) or an error; an *sdk.Error keeps its code, any other error becomes
// MM_INTERNAL_ERROR. Handlers never build envelopes, observations or
// records: what the record needs to know that only the call knows (a
// target, a redaction, what it observed) its result tells through the
// optional interfaces of result.go, a failed call's result too.
type Handler func(ctx context.Context, c *Call) (any, error)

// Tool is one registered MCP tool.
type Tool struct {
	// Name as agents see it, prefix included (mm_click).
	Name string
	// Description shown to agents.
	Description string
	// Schema is the exact input schema, as raw JSON. Its top-level
	// properties' defaults are what Decode fills in for an absent argument:
	// a default lives in the schema and nowhere else.
	Schema json.RawMessage
	// Label is the tool's class in the knowledge store (discovery,
	// navigation, interaction: what a later session's hints group by), ""
	// for none.
	Label string
	// Handler runs the tool.
	Handler Handler
	// Timeout is the deadline of the call's action; zero means
	// DefaultTimeout. The observation made after it has its own budget.
	Timeout time.Duration
	// Observe makes the runner collect an observation after the call,
	// following the call's policy (click, type, wait_for, navigate,
	// wait_for_notification, get_state, screenshot). A single call answers
	// first and is observed right after, before the next call runs; a
	// batch step is observed before the next step.
	Observe bool
	// Record makes the runner write a StepRecord for every call.
	Record bool
	// ReadOnly, when set, says whether a call changes neither the page
	// (DOM, scroll, layout, active tab) nor the wallet or chain; decode
	// reads the call's arguments as Call.Decode does (schema defaults
	// first). Such a call need not wait for the previous call's
	// step-record observation: it runs while that observation reads the
	// page it leaves as it is. Every other call waits for it (see
	// pageGate). nil means never.
	ReadOnly func(decode func(v any) error) bool
	// Capture marks a tool whose read-only calls capture the page's frame
	// (mm_screenshot of the viewport): the previous call's observation,
	// whose walk would hold the page's next frame back, waits until the
	// capture is done (see pageGate).
	Capture bool
	// NoBatch keeps the tool out of mm_run_steps.
	NoBatch bool
	// NoSession marks a tool that touches no session (the knowledge
	// tools, plugin tools): it runs without waiting for the session lock.
	NoSession bool
	// Settle makes the call wait, before its handler runs, until the step
	// record of every earlier call is written (they are made after the
	// calls answered): a tool that reads the records (the knowledge tools)
	// sees them all.
	Settle bool
	// Exclusive marks a call that may hold the session for minutes
	// (mm_launch): a call of the same owner that arrives while it runs
	// answers MM_LAUNCH_IN_PROGRESS at once, with what it is doing,
	// instead of queueing behind it.
	Exclusive bool
	// HoldBack names a string argument that may be a secret (typed text).
	// The record withholds it, with textRedacted and its length, from the
	// moment the call arrives (even when it fails validation) unless the
	// call's result says the value is not a secret (TextSafe).
	// Other arguments are withheld by the rule of package redact.
	HoldBack string
	// Input is the Go type a handler registered with Add decodes its
	// arguments into (nil for other handlers): a test holds it against
	// Schema.
	Input reflect.Type
}

// DefaultTimeout bounds a call whose tool sets no Timeout.
const DefaultTimeout = 2 * time.Minute

// Policy is an observation policy: which observations a batch's steps
// collect (all, none, failures).
type Policy string

// The observation policies.
const (
	// PolicyAll collects state, testids and the trimmed tree after every
	// step and refreshes the ref map. The default of every single call.
	PolicyAll Policy = "all"
	// PolicyNone collects the state only and leaves the ref map alone.
	PolicyNone Policy = "none"
	// PolicyFailures is PolicyNone on success and PolicyAll on failure,
	// collected after the failure is detected (the action never reruns).
	PolicyFailures Policy = "failures"
)

// Call is one tool invocation on its way through the runner.
type Call struct {
	// Tool is the tool being called.
	Tool *Tool
	// Args are the validated arguments ({} when absent).
	Args json.RawMessage
	// Policy is the observation policy of this call.
	Policy Policy
	// Progress reports progress to the client; never nil.
	Progress func(done, total float64, message string)

	// What the step record keeps of the call, besides its arguments: the
	// handler's result tells it (result.go, Call.take); a handler never
	// writes it.

	// target is the element target of an interaction (tools.Targeted).
	target map[string]string
	// textRedacted and textLength describe withheld typed text (see
	// Tool.HoldBack); the record never stores it while textRedacted.
	textRedacted bool
	textLength   *int
	// observation, when the result has one (describe_screen), is recorded
	// as is instead of collecting another.
	observation *observation.Observation
	// stateLater marks an observation without its state (what a discovery
	// tool gathered): the runner reads the state after the call answered.
	stateLater bool
	// stateAhead, with stateLater, is a state read the call started beside
	// its own work (a snapshot's walk): the runner takes the state from
	// it, ok, instead of reading it after the call answered. It is not ok
	// when the state may be older than what the tool gathered (the page
	// changed meanwhile): the runner then reads the state as usual.
	stateAhead func(context.Context) (st observation.State, ok bool)
	// screenshot is a screenshot artifact to reference from the record.
	screenshot *ScreenshotRef
	// images are returned to the client as MCP image content.
	images []Image
	// labels are labels to add to the record's derived ones.
	labels []string
	// confirmation is the record's confirmation block (tools.Confirmed).
	confirmation any

	// runner is set while the call runs, for nested calls (mm_run_steps).
	runner *Runner
	// defaults are the schema's top-level defaults, as one JSON object.
	defaults json.RawMessage
	// held is the held-back text, masked wherever the record echoes it.
	held string
	// sessionAtStart is the active session when the call started.
	sessionAtStart string
}

// ScreenshotRef is the artifacts.screenshot block of a record.
type ScreenshotRef struct {
	Path   string `json:"path"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// Image is an image returned to the client.
type Image struct {
	MIMEType string
	Base64   string
}

// holdBack marks the tool's HoldBack argument as withheld from the record
// (textRedacted, with its length) until the call's result releases it
// (TextSafe).
func (c *Call) holdBack() {
	key := c.Tool.HoldBack
	if key == "" {
		return
	}
	c.textRedacted = true
	var m map[string]json.RawMessage
	if json.Unmarshal(c.Args, &m) != nil {
		return
	}
	var v string
	if json.Unmarshal(m[key], &v) == nil {
		n := len([]rune(v))
		c.textLength = &n
		c.held = v
	}
}

// release lets the held-back argument into the record: the call has
// established that the field it went into is harmless.
func (c *Call) release() {
	c.textRedacted, c.textLength, c.held = false, nil, ""
}

// Decode unmarshals the call's arguments into v, after the schema's
// defaults: an argument the call leaves out gets its schema default.
func (c *Call) Decode(v any) error {
	if len(c.defaults) > 0 {
		if err := json.Unmarshal(c.defaults, v); err != nil {
			return err
		}
	}
	return json.Unmarshal(c.Args, v)
}

// Add registers a tool whose handler takes its arguments decoded into In
// (schema defaults applied, see Call.Decode): one definition per tool.
func Add[In any](r *Runner, t Tool, fn func(ctx context.Context, c *Call, in In) (any, error)) error {
	t.Input = reflect.TypeFor[In]()
	t.Handler = func(ctx context.Context, c *Call) (any, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return nil, err
		}
		if ck, ok := any(in).(Checker); ok {
			if err := ck.Check(); err != nil {
				return nil, err
			}
		}
		return fn(ctx, c, in)
	}
	return r.Add(&t)
}
