package session

import (
	"context"
	"encoding/json"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// CallPluginTool runs tool, one of plugin p's own tools, in the process
// the call's session uses (Plugin: a per-session plugin's own), its
// progress forwarded.
func (m *Manager) CallPluginTool(ctx context.Context, p *plugins.Plugin, tool string, args json.RawMessage, progress func(float64, float64, string)) (json.RawMessage, error) {
	var out json.RawMessage
	err := m.Plugin(ctx, p).Use(ctx, func(cl *pluginhost.Conn) error {
		var err error
		out, err = cl.CallTool(ctx, tool, args, plugins.Events{OnProgress: progress, Logger: m.log.Named(p.Spec.Name)})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
