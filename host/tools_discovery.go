package host

import (
	"context"

	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// targetInput is the target part of click, type and wait_for.
type targetInput struct {
	discovery.Target
	TimeoutMs *int   `json:"timeoutMs"`
	Text      string `json:"text"`
}

// interactionTimeout is spec 001's default for click, type and wait_for.
const interactionTimeout = 15000

func (in targetInput) timeout() time.Duration {
	ms := interactionTimeout
	if in.TimeoutMs != nil {
		ms = *in.TimeoutMs
	}
	// timeoutMs 0 means "do not wait", which still needs one attempt.
	return max(time.Duration(ms)*time.Millisecond, 100*time.Millisecond)
}

// decodeTarget decodes and checks a target, and notes it for the record.
func decodeTarget(c *tools.Call) (targetInput, error) {
	var in targetInput
	if err := c.Decode(&in); err != nil {
		return in, err
	}
	if err := in.Target.Validate(); err != nil {
		return in, err
	}
	c.Target = map[string]string{}
	switch {
	case in.A11yRef != "":
		c.Target["a11yRef"] = in.A11yRef
	case in.TestID != "":
		c.Target["testId"] = in.TestID
	default:
		c.Target["selector"] = in.Selector
	}
	return in, nil
}

// discoveryTools are the discovery and interaction tools.
func (h *Host) discoveryTools() []*tools.Tool {
	return []*tools.Tool{
		{
			Name:        h.name("list_testids"),
			Description: "List the visible data-testid attributes of the active page (interaction targets).",
			Schema:      schemas.Get("list_testids"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				in := struct {
					Limit int `json:"limit"`
				}{Limit: 150}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				s, err := h.page()
				if err != nil {
					return nil, err
				}
				items, err := discovery.TestIDs(ctx, s.browser.ActivePage(), in.Limit)
				if err != nil {
					return nil, err
				}
				partialObservation(c, items, nil)
				return map[string]any{"items": items}, nil
			},
		},
		{
			Name:        h.name("accessibility_snapshot"),
			Description: "Trimmed accessibility tree of the active page with refs e1..eN for mm_click/mm_type; a new snapshot replaces the refs.",
			Schema:      schemas.Get("accessibility_snapshot"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in struct{ RootSelector string }
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				s, err := h.page()
				if err != nil {
					return nil, err
				}
				nodes, refs, err := discovery.Snapshot(ctx, s.browser.ActivePage(), in.RootSelector)
				if err != nil {
					return nil, err
				}
				s.refs = refs
				partialObservation(c, nil, nodes)
				return map[string]any{"nodes": nodes}, nil
			},
		},
		{
			Name:        h.name("describe_screen"),
			Description: "State + visible testIds + trimmed accessibility tree with refs e1..eN (replaces the refs) + hints from earlier sessions; a screenshot only when asked.",
			Schema:      schemas.Get("describe_screen"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in struct {
					IncludeScreenshot       bool   `json:"includeScreenshot"`
					ScreenshotName          string `json:"screenshotName"`
					IncludeScreenshotBase64 bool   `json:"includeScreenshotBase64"`
				}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				s, err := h.page()
				if err != nil {
					return nil, err
				}
				obs := h.describe(ctx)
				h.chainBalance(ctx, s, &obs.State)
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
					shot, err := h.screenshot(ctx, c, browser.ScreenshotOptions{Name: name, IncludeBase64: in.IncludeScreenshotBase64})
					if err != nil {
						return nil, err
					}
					out["screenshot"] = shot
				}
				if pk := h.priorKnowledge(ctx, obs); pk != nil {
					out["priorKnowledge"] = pk
				}
				return out, nil
			},
		},
		{
			Name:        h.name("click"),
			Description: "Click an element given by exactly one of a11yRef, testId or selector; waits until it is visible, enabled and stable.",
			Schema:      schemas.Get("click"), Observe: true, Record: true, Timeout: 75 * time.Second,
			Handler: h.targetCall(func(ctx, actx context.Context, _ *tools.Call, s *session, in targetInput) (any, error) {
				page := s.browser.ActivePage()
				popup := s.browser.Tabs().Active.Role == "notification"
				var before string
				if popup {
					before = s.browser.PageHref(actx, page)
				}
				tabsBefore := s.browser.Tabs().Tracked
				res, err := discovery.Click(actx, page, s.refs, in.Target)
				if err == nil && popup && !res.PageClosedAfterClick {
					// The wallet's background closes a confirmation popup
					// once the approval is settled (MetaMask: > 500 ms).
					res.PageClosedAfterClick = s.browser.WaitPopupClosed(ctx, page, before)
				}
				if res.Changes != nil {
					res.Changes.TabsOpened = openedTabs(tabsBefore, s.browser.Tabs().Tracked)
				}
				return res, err
			}),
		},
		{
			Name:        h.name("type"),
			Description: "Replace the value of an input given by exactly one of a11yRef, testId or selector with text.",
			Schema:      schemas.Get("type"), Observe: true, Record: true, Timeout: 75 * time.Second,
			// Until the field is known the record keeps no text at all.
			HoldBack: "text",
			Handler: h.targetCall(func(_, actx context.Context, c *tools.Call, s *session, in targetInput) (any, error) {
				res, err := discovery.Type(actx, s.browser.ActivePage(), s.refs, in.Target, in.Text)
				if err != nil {
					return nil, err
				}
				if !sensitiveField(res.Field, in.Target, in.Text) {
					c.Release()
				}
				return res, nil
			}),
		},
		{
			Name:        h.name("wait_for"),
			Description: "Wait until an element given by exactly one of a11yRef, testId or selector is visible.",
			Schema:      schemas.Get("wait_for"), Observe: true, Record: true, Timeout: 135 * time.Second,
			Handler: h.targetCall(func(_, actx context.Context, _ *tools.Call, s *session, in targetInput) (any, error) {
				return discovery.WaitFor(actx, s.browser.ActivePage(), s.refs, in.Target)
			}),
		},
	}
}

// targetCall is the handler of click, type and wait_for: it decodes and
// checks the target, needs an active page, and runs fn with the call's ctx
// and actx, which also ends at the interaction's timeoutMs.
func (h *Host) targetCall(fn func(ctx, actx context.Context, c *tools.Call, s *session, in targetInput) (any, error)) tools.Handler {
	return func(ctx context.Context, c *tools.Call) (any, error) {
		in, err := decodeTarget(c)
		if err != nil {
			return nil, err
		}
		s, err := h.page()
		if err != nil {
			return nil, err
		}
		actx, cancel := context.WithTimeout(ctx, in.timeout())
		defer cancel()
		actx = discovery.WithSlowMo(actx, s.browser.SlowMo())
		return fn(ctx, actx, c, s, in)
	}
}

// errNoPage answers a call that needs a page when the active one is gone.
var errNoPage = sdk.Errorf(sdk.CodeNoActiveSession, "the session has no active page: switch to a tab with mm_switch_to_tab")

// page returns the session when it has an active page.
func (h *Host) page() (*session, error) {
	s, err := h.active()
	if err != nil {
		return nil, err
	}
	if s.browser.ActivePage() == nil {
		return nil, errNoPage
	}
	return s, nil
}

// partialObservation gives c's record what a discovery tool gathered; the
// runner adds the state once the call has answered.
func partialObservation(c *tools.Call, ids []observation.TestIDItem, nodes []observation.A11yNode) {
	obs := &observation.Observation{TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
	if ids != nil {
		obs.TestIDs = ids
	}
	if nodes != nil {
		obs.A11y.Nodes = nodes
	}
	c.Observation = obs
	c.StateLater = true
}

// openedTabs lists the tabs (role and URL) in after that were not in before.
func openedTabs(before, after []observation.Tab) []string {
	seen := make(map[observation.Tab]int, len(before))
	for _, t := range before {
		seen[t]++
	}
	var out []string
	for _, t := range after {
		if seen[t] > 0 {
			seen[t]--
			continue
		}
		out = append(out, t.Role+" "+t.URL)
	}
	return out
}
