package builtin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// buildTool is mm_build: the build capability (its default build type is
// the plugin's), its output forwarded as progress.
func (g *reg) buildTool() {
	add(g, "build", tools.Tool{
		Description: "Build the extension from source (yarn build:test in the workspace). Requires the build capability.",
		Timeout:     15 * time.Minute,
		Record:      true,
	}, func(ctx context.Context, c *tools.Call, _ struct{}) (any, error) {
		// The arguments as given, without the schema's defaults: the
		// build plugin owns the default build type (its settings may
		// change it), so the host sends a zero value.
		var in sdk.BuildRequest
		if err := json.Unmarshal(c.Args, &in); err != nil {
			return nil, err
		}
		return g.Sessions.Build(ctx, in, c.Progress)
	})
}
