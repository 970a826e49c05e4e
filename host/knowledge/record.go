package knowledge

import "github.com/mmcp-dev/mmcp/host/observation"

// SchemaVersion is the version of StepRecord and session.json this package
// writes and the only one it reads.
const SchemaVersion = 1

// StepRecord is one recorded tool call, valid for StepRecordSchema (v1, plus
// the optional labels).
type StepRecord struct {
	// SchemaVersion is always 1; Record fills it.
	SchemaVersion int `json:"schemaVersion"`
	// Timestamp is RFC 3339 UTC with milliseconds; Record fills it when empty.
	Timestamp string `json:"timestamp"`
	// SessionID is the session the step belongs to (and its directory name).
	SessionID string `json:"sessionId"`
	// Environment describes the machine that ran the step.
	Environment *Environment `json:"environment,omitempty"`
	// Git is the workspace's git state.
	Git *GitInfo `json:"git,omitempty"`
	// Build is the extension build in use. Its content hash goes into
	// the labels ("build:<id>"): the schema closes this block.
	Build *BuildInfo `json:"build,omitempty"`
	// Tool is the call itself, with sanitized input.
	Tool ToolCall `json:"tool"`
	// Timing holds the call's duration.
	Timing *Timing `json:"timing,omitempty"`
	// Outcome says whether the call succeeded and, if not, why.
	Outcome Outcome `json:"outcome"`
	// Observation is the screen after the call.
	Observation observation.Observation `json:"observation"`
	// Artifacts references files the call produced (screenshots).
	Artifacts *Artifacts `json:"artifacts,omitempty"`
	// Labels classify the step (discovery, navigation, interaction,
	// confirmation, error-recovery); Record derives them when empty.
	Labels []string `json:"labels,omitempty"`
	// Confirmation is the confirmation block of mm_confirmation and
	// mm_confirm (a JSON value: kind, origin, request, shown, mismatches,
	// outcome, transaction). The schema has no field for it: Record keeps
	// it masked in tool.input.confirmation and labels the record with its
	// kind, outcome and mismatches; SessionSteps reads it back here.
	Confirmation any `json:"-"`
}

// Environment is the environment block of a StepRecord.
type Environment struct {
	// Platform is the operating system (runtime.GOOS).
	Platform string `json:"platform,omitempty"`
	// NodeVersion is the Node.js version of the workspace, when known.
	NodeVersion string `json:"nodeVersion,omitempty"`
	// YarnVersion is the Yarn version of the workspace, when known.
	YarnVersion string `json:"yarnVersion,omitempty"`
}

// GitInfo is the git block of a StepRecord and of session.json.
type GitInfo struct {
	// Branch is the checked-out branch.
	Branch string `json:"branch,omitempty"`
	// Commit is the HEAD commit.
	Commit string `json:"commit,omitempty"`
	// Dirty reports uncommitted changes; nil when unknown.
	Dirty *bool `json:"dirty,omitempty"`
}

// BuildInfo is the build block of a StepRecord and of session.json.
type BuildInfo struct {
	// BuildType is BuildType (the only value the schema allows).
	BuildType string `json:"buildType,omitempty"`
	// ExtensionPathResolved is the absolute path of the unpacked extension.
	ExtensionPathResolved string `json:"extensionPathResolved,omitempty"`
	// BuildID is the content hash of the build (sdk.BuildID); it changes
	// with every in-place reload of a rebuilt extension. session.json
	// keeps the launched build's; a step record carries it, where it
	// changed, as the label "build:<id>" (Record moves it there: the
	// schema closes this block), and SessionSteps fills it in for every
	// step from the latest such label.
	BuildID string `json:"buildId,omitempty"`
}

// ToolCall is the tool block of a StepRecord.
type ToolCall struct {
	// Name is the MCP tool name, e.g. "mm_click".
	Name string `json:"name"`
	// Input is the sanitized tool input: Record withholds secrets by the
	// rule of package redact, and stores a rejected, too large or too deep
	// input as its size and shape.
	Input map[string]any `json:"input,omitempty"`
	// Target is the element the call acted on.
	Target *Target `json:"target,omitempty"`
	// TextRedacted is true when typed text was sensitive and not stored.
	TextRedacted bool `json:"textRedacted,omitempty"`
	// TextLength is the length of the redacted text.
	TextLength *int `json:"textLength,omitempty"`
	// TextKept says the top-level typed text may be stored: the field it
	// went into is known to be harmless. Otherwise Record withholds it.
	TextKept bool `json:"-"`
	// Withheld are secret values of the call that are not in Input (typed
	// text held back): Record masks any echo of them in the outcome.
	Withheld []string `json:"-"`
}

// Target is the element a tool acted on: one of Selector, TestID and
// A11yRef is set; Role and Name go with an A11yRef.
type Target struct {
	// Selector is a CSS selector.
	Selector string `json:"selector,omitempty"`
	// TestID is a data-testid value.
	TestID string `json:"testId,omitempty"`
	// A11yRef is an accessibility ref such as "e5".
	A11yRef string `json:"a11yRef,omitempty"`
	// Role and Name are the role and accessible name the a11yRef was
	// given with: a target that outlives the snapshot (flow export). The
	// schema closes the target block: Record keeps them as the labels
	// "target-role:<role>" and "target-name:<name>", and reading a record
	// (SessionSteps) restores them from there.
	Role string `json:"-"`
	Name string `json:"-"`
}

// Timing is the timing block of a StepRecord.
type Timing struct {
	// DurationMs is the wall time of the call in milliseconds.
	DurationMs int64 `json:"durationMs"`
}

// Outcome is the outcome block of a StepRecord.
type Outcome struct {
	// OK is true when the call succeeded.
	OK bool `json:"ok"`
	// Error describes the failure when OK is false.
	Error *OutcomeError `json:"error,omitempty"`
}

// OutcomeError is the error of a failed call (the envelope's error object).
type OutcomeError struct {
	// Code is an MM_* code.
	Code string `json:"code,omitempty"`
	// Message is the human-readable summary.
	Message string `json:"message,omitempty"`
	// Details carries structured context.
	Details map[string]any `json:"details,omitempty"`
}

// Artifacts is the artifacts block of a StepRecord.
type Artifacts struct {
	// Screenshot references a screenshot file taken by the call.
	Screenshot *Screenshot `json:"screenshot,omitempty"`
}

// Screenshot references one screenshot file.
type Screenshot struct {
	// Path is where the PNG was written.
	Path string `json:"path,omitempty"`
	// Width is the image width in pixels.
	Width int `json:"width,omitempty"`
	// Height is the image height in pixels.
	Height int `json:"height,omitempty"`
}

// BuildType is the only build type the step record schema allows.
const BuildType = "build:test"
