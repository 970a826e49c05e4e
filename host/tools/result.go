package tools

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// A handler's result tells the runner what the step record needs through
// these small optional interfaces, which the runner checks once, after the
// handler returns (whether it failed or not: a failed interaction still
// returns its target). The result's JSON is the answer; what these
// methods return is the record's, never the answer's.

// Targeted is the result of a call that acts on an element: the record's
// tool.target (selector, testId, a11yRef, and the ref's role and name).
type Targeted interface {
	RecordTarget() map[string]string
}

// Observed is the result of a call that gathered its record's
// observation itself. With stateLater the observation lacks its state
// (what a discovery tool gathered): the runner reads the state after the
// call answered, unless the result is also a StateAhead whose read holds.
type Observed interface {
	RecordObservation() (obs *observation.Observation, stateLater bool)
}

// StateAhead is the result of a call that started its record's state read
// beside its own work (a snapshot's walk): ok when the record may keep
// that read; otherwise the runner reads the state as usual.
type StateAhead interface {
	RecordStateAhead(ctx context.Context) (st observation.State, ok bool)
}

// Screenshotted is the result of a call that saved a screenshot: the
// record's artifacts.screenshot.
type Screenshotted interface {
	RecordScreenshot() *ScreenshotRef
}

// Imaged is the result of a call that returns images to the client as MCP
// image content, beside the answer.
type Imaged interface {
	ResultImages() []Image
}

// Labeled is the result of a call that adds labels to the record's
// derived ones.
type Labeled interface {
	RecordLabels() []string
}

// Confirmed is the result of a call that read or answered a wallet
// confirmation (mm_confirmation, mm_confirm): the record's confirmation
// block (a JSON value; nil for none), which the knowledge store keeps
// masked of secrets.
type Confirmed interface {
	RecordConfirmation() any
}

// TextSafe is the result of a call whose tool holds an argument back
// (Tool.HoldBack): true lets the argument into the record, the call having
// established that the field it went into is harmless. Without it, or
// false, the record keeps the text's length only.
type TextSafe interface {
	TextSafe() bool
}

// take reads what res tells the record into c.
func (c *Call) take(res any) {
	if res == nil {
		return
	}
	if r, ok := res.(Targeted); ok {
		c.target = r.RecordTarget()
	}
	if r, ok := res.(Observed); ok {
		c.observation, c.stateLater = r.RecordObservation()
	}
	if r, ok := res.(StateAhead); ok {
		c.stateAhead = r.RecordStateAhead
	}
	if r, ok := res.(Screenshotted); ok {
		c.screenshot = r.RecordScreenshot()
	}
	if r, ok := res.(Imaged); ok {
		c.images = append(c.images, r.ResultImages()...)
	}
	if r, ok := res.(Labeled); ok {
		c.labels = r.RecordLabels()
	}
	if r, ok := res.(Confirmed); ok {
		c.confirmation = r.RecordConfirmation()
	}
	if r, ok := res.(TextSafe); ok && r.TextSafe() {
		c.release()
	}
}

type recordedKey struct{}

// Recorded reports whether the call ctx belongs to gets a step record: a
// session operation then starts its record's state read beside its own
// work (a read ahead), which an unrecorded call would only waste.
func Recorded(ctx context.Context) bool {
	r, _ := ctx.Value(recordedKey{}).(bool)
	return r
}
