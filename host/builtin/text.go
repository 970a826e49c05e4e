package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
)

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
			res, err := discovery.Text(actx, s.Browser.ActivePage(), s.Refs(), t.Target, in.MaxChars)
			if err != nil {
				return nil, err
			}
			// the record keeps the state, not the text
			partialObservation(c, nil, nil)
			return res, nil
		})(ctx, c, in.targetInput)
	})
}
