package testutil

import (
	"context"
	"encoding/json"

	"github.com/mmcp-dev/mmcp/sdk"
)

// CallTool calls a plugin's tool in-process, as the plugin's server does,
// and answers the tool's result.
func CallTool(ctx context.Context, tp sdk.ToolProvider, name string, args []byte, ev sdk.Events) (any, error) {
	res, err := tp.CallTool(ctx, sdk.CallToolRequest{Name: name, Arguments: json.RawMessage(args)}, ev)
	return res.Result, err
}
