package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
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

// timeout is the interaction's limit; timeoutMs 0 means "do not wait",
// which still needs one attempt.
func (in targetInput) timeout() time.Duration {
	return max(time.Duration(in.TimeoutMs)*time.Millisecond, 100*time.Millisecond)
}

// onTarget is the handler of click, type and wait_for (their target
// checked by targetInput.Check): it notes the target for the record,
// needs an active page, and runs fn
// with the call's ctx and actx, which also ends at the interaction's
// timeoutMs.
func onTarget(g *reg, fn func(ctx, actx context.Context, c *tools.Call, s *session.Session, in targetInput) (any, error)) func(context.Context, *tools.Call, targetInput) (any, error) {
	return func(ctx context.Context, c *tools.Call, in targetInput) (any, error) {
		c.Target = map[string]string{}
		switch {
		case in.A11yRef != "":
			c.Target["a11yRef"] = in.A11yRef
		case in.TestID != "":
			c.Target["testId"] = in.TestID
		default:
			c.Target["selector"] = in.Selector
		}
		s, err := g.Sessions.Page(ctx)
		if err != nil {
			return nil, err
		}
		// The ref's role and name go into the record: a target that
		// outlives the snapshot (mmcp flow export).
		if role, name, ok := s.Refs().Describe(in.A11yRef); ok && in.A11yRef != "" {
			c.Target["role"], c.Target["name"] = role, name
		}
		actx, cancel := context.WithTimeout(ctx, in.timeout())
		defer cancel()
		return fn(ctx, s.Interaction(actx), c, s, in)
	}
}

// discoveryTools are the discovery and interaction tools.
func (g *reg) discoveryTools() {
	add(g, "list_testids", tools.Tool{
		Description: "List the visible data-testid attributes of the active page (interaction targets).",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, inSession(g.Sessions.Page, func(ctx context.Context, c *tools.Call, s *session.Session, in struct {
		Limit int `json:"limit"`
	}) (any, error) {
		readAhead(ctx, c, s)
		items, err := s.TestIDs(ctx, in.Limit)
		if err != nil {
			return nil, err
		}
		partialObservation(c, nil, items, nil)
		return map[string]any{"items": items}, nil
	}))
	add(g, "accessibility_snapshot", tools.Tool{
		Description: "Trimmed accessibility tree of the active page with refs e1..eN for mm_click/mm_type; a new snapshot replaces the refs. format \"text\" answers {outline}: one node a line, \"ref role[states]:name\", indented under its dialog or heading.",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, inSession(g.Sessions.Page, func(ctx context.Context, c *tools.Call, s *session.Session, in struct{ RootSelector, Format string }) (any, error) {
		nodes, ahead, err := s.Snapshot(ctx, in.RootSelector, c.Recorded())
		if err != nil {
			return nil, err
		}
		partialObservation(c, ahead, nil, nodes)
		if in.Format == "text" {
			return map[string]any{"outline": discovery.Outline(nodes)}, nil
		}
		return map[string]any{"nodes": nodes}, nil
	}))
	add(g, "describe_screen", tools.Tool{
		Description: "State + visible testIds + trimmed accessibility tree with refs e1..eN (replaces the refs) + hints from earlier sessions; a screenshot only when asked.",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, inSession(g.Sessions.Page, func(ctx context.Context, c *tools.Call, s *session.Session, in struct {
		IncludeScreenshot       bool   `json:"includeScreenshot"`
		ScreenshotName          string `json:"screenshotName"`
		IncludeScreenshotBase64 bool   `json:"includeScreenshotBase64"`
	}) (any, error) {
		obs := g.Sessions.Describe(ctx)
		g.Sessions.ChainBalance(ctx, s, &obs.State)
		c.Observation = obs
		out := map[string]any{
			"state":      obs.State,
			"testIds":    map[string]any{"items": obs.TestIDs},
			"a11y":       obs.A11y,
			"screenshot": nil,
		}
		if in.IncludeScreenshot || in.IncludeScreenshotBase64 {
			name := in.ScreenshotName
			if name == "" {
				name = "describe-" + time.Now().UTC().Format("20060102T150405.000Z")
			}
			shot, err := screenshot(ctx, c, s, browser.ScreenshotOptions{Name: name, IncludeBase64: in.IncludeScreenshotBase64})
			if err != nil {
				return nil, err
			}
			// Spec 000 7.11's shape: base64 is null unless asked for.
			var b64 any
			if shot.Base64 != "" {
				b64 = shot.Base64
			}
			out["screenshot"] = map[string]any{"path": shot.Path, "width": shot.Width, "height": shot.Height, "base64": b64}
		}
		if pk := g.priorKnowledge(ctx, s.ID, obs); pk != nil {
			out["priorKnowledge"] = pk
		}
		return out, nil
	}))
	add(g, "click", tools.Tool{
		Description: "Click an element given by exactly one of a11yRef, testId or selector; waits until it is visible, enabled and stable.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 75 * time.Second,
	}, onTarget(g, func(ctx, actx context.Context, _ *tools.Call, s *session.Session, in targetInput) (any, error) {
		return s.Click(ctx, actx, in.Target)
	}))
	add(g, "type", tools.Tool{
		Description: "Replace the value of an input given by exactly one of a11yRef, testId or selector with text.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 75 * time.Second,
		// Until the field is known the record keeps no text at all.
		HoldBack: "text",
	}, onTarget(g, func(_, actx context.Context, c *tools.Call, s *session.Session, in targetInput) (any, error) {
		res, err := s.Type(actx, in.Target, in.Text)
		if err != nil {
			return nil, err
		}
		if !sensitiveField(res.Field, in.Target, in.Text) {
			c.Release()
		}
		return res, nil
	}))
	add(g, "wait_for", tools.Tool{
		Description: "Wait until an element given by exactly one of a11yRef, testId or selector is visible.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 135 * time.Second,
	}, onTarget(g, func(_, actx context.Context, _ *tools.Call, s *session.Session, in targetInput) (any, error) {
		return s.WaitFor(actx, in.Target)
	}))
}

// readAhead starts the state read of c's record as the call starts, beside
// what the call does (session.ReadAhead), when c is recorded.
func readAhead(ctx context.Context, c *tools.Call, s *session.Session) {
	if c.Recorded() {
		s.ReadAhead(ctx)
	}
}

// partialObservation gives c's record what a discovery tool gathered; the
// runner adds the state: ahead's (read beside the tool's walk) when it may
// be kept, else one read once the call has answered.
func partialObservation(c *tools.Call, ahead session.StateAhead, ids []observation.TestIDItem, nodes []observation.A11yNode) {
	obs := &observation.Observation{TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
	if ids != nil {
		obs.TestIDs = ids
	}
	if nodes != nil {
		obs.A11y.Nodes = nodes
	}
	c.Observation = obs
	c.StateLater = true
	c.StateAhead = ahead
}

// sensitiveField decides from the element, the target and the text itself
// whether typed text is a secret.
func sensitiveField(f discovery.FieldInfo, t discovery.Target, text string) bool {
	tid := f.TestID
	if tid == "" {
		tid = t.TestID
	}
	return knowledge.Sensitive(knowledge.FieldHints{
		InputType: f.Type, Name: f.Name, ID: f.ID, Label: f.Label, Placeholder: f.Placeholder,
		Autocomplete: f.Autocomplete, AriaLabel: f.AriaLabel, TestID: tid,
		Selector: t.Selector,
	}, text)
}

// textTool is mm_get_text: an element's visible text, masked by the
// records' rule, without a screenshot.
func (g *reg) textTool() {
	add(g, "get_text", tools.Tool{
		Description: "Read the visible text of an element given by exactly one of a11yRef, testId or selector (innerText: hidden parts left out; a field: its value), at most maxChars characters; secrets are masked.",
		Label:       knowledge.LabelDiscovery, Record: true, Timeout: 75 * time.Second,
	}, func(ctx context.Context, c *tools.Call, in struct {
		targetInput
		MaxChars int `json:"maxChars"`
	}) (any, error) {
		return onTarget(g, func(_, actx context.Context, c *tools.Call, s *session.Session, t targetInput) (any, error) {
			readAhead(actx, c, s)
			res, err := s.Text(actx, t.Target, in.MaxChars)
			if err != nil {
				return nil, err
			}
			// the record keeps the state, not the text
			partialObservation(c, nil, nil, nil)
			return res, nil
		})(ctx, c, in.targetInput)
	})
}
