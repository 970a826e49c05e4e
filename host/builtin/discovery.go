package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// targetInput is the input of click, type and wait_for: the target, the
// interaction's timeoutMs (its default is the schema's) and type's text.
type targetInput struct {
	discovery.Target
	TimeoutMs int    `json:"timeoutMs"`
	Text      string `json:"text"`
}

// Check implements tools.Checker: exactly one target.
func (in targetInput) Check() error { return in.Target.Validate() }

// timeout is the interaction's limit (timeoutMs; 0 means "do not wait").
func (in targetInput) timeout() time.Duration { return time.Duration(in.TimeoutMs) * time.Millisecond }

// discoveryTools are the discovery and interaction tools.
func (g *reg) discoveryTools() {
	add(g, "list_testids", tools.Tool{
		Description: "List the visible data-testid attributes of the active page (interaction targets).",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		Limit int `json:"limit"`
	}) (any, error) {
		return g.Sessions.ListTestIDs(ctx, in.Limit)
	})
	add(g, "accessibility_snapshot", tools.Tool{
		Description: "Trimmed accessibility tree of the active page with refs e1..eN for mm_click/mm_type; a new snapshot replaces the refs. format \"text\" answers {outline}: one node a line, \"ref role[states]:name\", indented under its dialog or heading.",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in struct{ RootSelector, Format string }) (any, error) {
		return g.Sessions.AccessibilitySnapshot(ctx, in.RootSelector, in.Format == "text")
	})
	add(g, "describe_screen", tools.Tool{
		Description: "State + visible testIds + trimmed accessibility tree with refs e1..eN (replaces the refs) + hints from earlier sessions; a screenshot only when asked.",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in session.DescribeOptions) (any, error) {
		return g.Sessions.DescribeScreen(ctx, in)
	})
	add(g, "click", tools.Tool{
		Description: "Click an element given by exactly one of a11yRef, testId or selector; waits until it is visible, enabled and stable.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 75 * time.Second,
	}, func(ctx context.Context, _ *tools.Call, in targetInput) (any, error) {
		return g.Sessions.Click(ctx, in.Target, in.timeout())
	})
	add(g, "type", tools.Tool{
		Description: "Replace the value of an input given by exactly one of a11yRef, testId or selector with text.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 75 * time.Second,
		// Until the field is known the record keeps no text at all.
		HoldBack: "text",
	}, func(ctx context.Context, _ *tools.Call, in targetInput) (any, error) {
		return g.Sessions.Type(ctx, in.Target, in.Text, in.timeout())
	})
	add(g, "wait_for", tools.Tool{
		Description: "Wait until an element given by exactly one of a11yRef, testId or selector is visible.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 135 * time.Second,
	}, func(ctx context.Context, _ *tools.Call, in targetInput) (any, error) {
		return g.Sessions.WaitFor(ctx, in.Target, in.timeout())
	})
	add(g, "get_text", tools.Tool{
		Description: "Read the visible text of an element given by exactly one of a11yRef, testId or selector (innerText: hidden parts left out; a field: its value), at most maxChars characters; secrets are masked.",
		Label:       knowledge.LabelDiscovery, Record: true, Timeout: 75 * time.Second,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		targetInput
		MaxChars int `json:"maxChars"`
	}) (any, error) {
		return g.Sessions.GetText(ctx, in.Target, in.MaxChars, in.timeout())
	})
}
