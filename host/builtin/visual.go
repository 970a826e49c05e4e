package builtin

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// visualTools is mm_visual_check.
func (g *reg) visualTools() {
	add(g, "visual_check", tools.Tool{
		Description: "Compare a steady screenshot (animations, transitions and caret off; fonts loaded; scrolled to the top unless scroll:keep; two equal frames in a row) of the viewport, the full page or one element (a11yRef/testId/selector) with the baseline of name: first call or update:true writes it (baseline-created/-updated), later calls answer match or changed with diffPixels, diffRatio and the changed regions (pixel boxes, the edited element first, with the testIds, roles, names and refs under them). The wallet mask preset (on unless masks:none) paints over text that differs between sessions (network with its port, addresses, balances, fiat, dates, times, identicons), listed in presetMasks; mask boxes are painted over too. maxDiffPixels/maxDiffRatio tolerate a change that small; includeImage returns the diff image.",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in session.VisualInput) (any, error) {
		return g.Sessions.VisualCheck(ctx, in)
	})
}
