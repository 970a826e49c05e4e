package builtin

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// structureTools is mm_structure_check.
func (g *reg) structureTools() {
	add(g, "structure_check", tools.Tool{
		Description: "Compare the page's trimmed accessibility tree (roles, names, states, paths; no refs), whole or under rootSelector, with the committed baseline of name (test/structure-baselines/<name>.json): first call or update:true writes it; later calls answer match or changed with the nodes added, removed and changed (renamed, other states), each with its path and index. strict (default) fails on added nodes too. The wallet preset (unless masks:none) puts <network>, <address>, <balance>, ... in place of names that differ between sessions.",
		Label:       knowledge.LabelDiscovery, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in session.StructureInput) (any, error) {
		return g.Sessions.StructureCheck(ctx, in)
	})
}
