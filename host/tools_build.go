package host

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/launch"

	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// buildTool is mm_build.
func (h *Host) buildTool() *tools.Tool {
	return &tools.Tool{
		Name:        h.name("build"),
		Description: "Build the extension from source (yarn build:test in the workspace). Requires the build capability.",
		Schema:      schemas.Get("build"),
		Timeout:     15 * time.Minute,
		Record:      true,
		Handler: func(ctx context.Context, c *tools.Call) (any, error) {
			var in sdk.BuildOptions
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			res, err := h.build(ctx, in, c.Progress)
			if err != nil {
				return nil, err
			}
			return map[string]any{"buildType": res.BuildType, "extensionPathResolved": res.ExtensionPath}, nil
		},
	}
}

// build runs the build capability (its default build type is the
// plugin's), forwarding its output as progress.
func (h *Host) build(ctx context.Context, in sdk.BuildOptions, progress func(float64, float64, string)) (sdk.BuildResult, error) {
	if h.cfg.Repo == "" {
		return sdk.BuildResult{}, sdk.Errorf(sdk.CodeNoWorkspace, "%s builds the extension checkout, and this host has no workspace: start mmcp with --repo /path/to/metamask-extension (or set MMCP_REPO)", h.name("build"))
	}
	res, err := h.plugins.Builder().Build(ctx, in, launch.Events{OnProgress: progress, Logger: h.log.Named("build")})
	if err == nil {
		res.ExtensionPath = h.cfg.path(res.ExtensionPath)
	}
	return res, err
}
