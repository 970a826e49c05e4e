package builtin

import (
	"context"
	"fmt"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// pluginTools registers each plugin's own tools as <plugin>_<tool>. A name
// that collides with a registered tool is rejected and logged; the rest of
// the plugin's tools still serve.
func (g *reg) pluginTools() {
	for _, p := range g.Plugins.Plugins() {
		if p.Err != nil {
			continue
		}
		for _, t := range p.Desc.Tools {
			name := p.Spec.Name + "_" + t.Name
			if err := g.r.Add(g.pluginTool(p, name, t)); err != nil {
				g.Log.Warn("plugin tool rejected", "plugin", p.Spec.Name, "tool", name, "error", err)
				p.Rejected = append(p.Rejected, fmt.Sprintf("%s: %v", name, err))
			}
		}
	}
}

func (g *reg) pluginTool(p *plugins.Plugin, name string, t sdk.Tool) *tools.Tool {
	return &tools.Tool{
		Name:        name,
		Description: t.Description,
		Schema:      t.InputSchema,
		// A plugin's own tools run in the plugin: they never wait for the
		// session lock. A per-session plugin's tools reach the call's
		// session's own process (its chain).
		NoSession: true,
		Handler: func(ctx context.Context, c *tools.Call) (any, error) {
			return g.Sessions.CallPluginTool(ctx, p, t.Name, c.Args, c.Progress)
		},
	}
}
