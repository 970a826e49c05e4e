package session

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Build builds the extension from the workspace (mm_build) through the
// build capability, its output forwarded to progress. o is the call's
// arguments as given: the build plugin owns the default build type.
func (m *Manager) Build(ctx context.Context, o sdk.BuildRequest, progress func(float64, float64, string)) (map[string]any, error) {
	if m.cfg.Repo == "" {
		return nil, sdk.Errorf(sdk.CodeNoWorkspace, "%s builds the extension checkout, and this host has no workspace: start mmcp with --repo /path/to/metamask-extension (or set MMCP_REPO)", m.tool("build"))
	}
	res, err := m.plugins.Builder().Build(ctx, o, plugins.Events{OnProgress: progress, Logger: m.log.Named("build")})
	if err != nil {
		return nil, err
	}
	return map[string]any{"buildType": res.BuildType, "extensionPathResolved": m.cfg.Path(res.ExtensionPath)}, nil
}
