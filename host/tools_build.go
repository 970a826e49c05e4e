package host

import (
	"context"
	"path/filepath"
	"time"

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

// build runs the build capability, forwarding its output as progress.
func (h *Host) build(ctx context.Context, in sdk.BuildOptions, progress func(float64, float64, string)) (sdk.BuildResult, error) {
	if in.BuildType == "" {
		in.BuildType = "build:test"
	}
	var res sdk.BuildResult
	err := h.plugins.Use(ctx, sdk.CapBuild, func(c *sdk.Client) error {
		var err error
		res, err = c.Builder().Build(ctx, in, progressEvents{progress, h.log.Named("build")})
		return err
	})
	if err == nil && !filepath.IsAbs(res.ExtensionPath) {
		res.ExtensionPath = h.cfg.path(res.ExtensionPath)
	}
	return res, err
}
