// Command mmcp-plugin-hello is a complete custom mmcp plugin: it contributes
// one MCP tool, hello_greet, to every agent that uses the host.
//
// Build it and drop it where the host looks for plugins:
//
//	go build -o <workspace>/.mmcp/plugins/mmcp-plugin-hello ./examples/hello-plugin
//	mmcp --trust-workspace-plugins plugins   # (or pin its sha256 in .mmcp/config.json)
//	# shows hello with its tool hello_greet
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// hello is the plugin. It only needs Info, Configure and Stop, plus the
// ToolProvider methods because it contributes a tool.
type hello struct{ workspace string }

// A wrong method signature fails the build instead of dropping the capability.
var _ sdk.ToolProvider = (*hello)(nil)

func (h *hello) Info() sdk.Info { return sdk.Info{Name: "hello", Version: "1.0.0"} }

func (h *hello) Configure(_ context.Context, cfg sdk.Config) error {
	h.workspace = cfg.Workspace
	return nil
}

func (h *hello) Stop(context.Context) error { return nil }

// Tools lists the tool; the host exposes it as hello_greet and validates
// every call against the schema before it reaches CallTool.
func (h *hello) Tools() []sdk.Tool {
	return []sdk.Tool{{
		Name:        "greet",
		Description: "Greets someone by name, from the workspace the host runs in.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"additionalProperties": false,
			"properties": {"name": {"type": "string", "minLength": 1}, "shout": {"type": "boolean"}},
			"required": ["name"]
		}`),
	}}
}

func (h *hello) CallTool(_ context.Context, tool string, args json.RawMessage, ev sdk.Events) (any, error) {
	if tool != "greet" {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "unknown tool %q", tool)
	}
	var in struct {
		Name  string `json:"name"`
		Shout bool   `json:"shout"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "bad arguments: %v", err)
	}
	ev.Log("info", "greeting "+in.Name) // goes to the host's log, never stdout
	msg := fmt.Sprintf("hello, %s (from %s)", in.Name, h.workspace)
	if in.Shout {
		msg = strings.ToUpper(msg)
	}
	return map[string]string{"greeting": msg}, nil
}

func main() { sdk.Main(&hello{}) }
