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
	"fmt"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// hello is the plugin. It only needs Info, Configure and Stop, plus the
// ToolProvider methods because it contributes a tool: the embedded
// sdk.ToolSet provides them.
type hello struct {
	sdk.ToolSet
	workspace string
}

// A wrong method signature fails the build instead of dropping the capability.
var _ sdk.ToolProvider = (*hello)(nil)

func newHello() *hello {
	h := &hello{}
	// The host exposes the tool as hello_greet; every call is checked
	// against the schema and gets its defaults before the handler runs.
	sdk.AddTool(&h.ToolSet, "greet", "Greets someone by name, from the workspace the host runs in.", `{
		"type": "object",
		"additionalProperties": false,
		"properties": {"name": {"type": "string", "minLength": 1}, "shout": {"type": "boolean", "default": false}},
		"required": ["name"]
	}`, h.greet)
	return h
}

func (h *hello) Info() sdk.Info { return sdk.Info{Name: "hello", Version: "1.0.0"} }

func (h *hello) Configure(_ context.Context, cfg sdk.Config) error {
	h.workspace = cfg.Workspace
	return nil
}

func (h *hello) Stop(context.Context) error { return nil }

// greetInput is greet's input, decoded from the call's arguments.
type greetInput struct {
	Name  string `json:"name"`
	Shout bool   `json:"shout"`
}

func (h *hello) greet(_ context.Context, in greetInput, ev sdk.Events) (any, error) {
	ev.Log("info", "greeting "+in.Name) // goes to the host's log, never stdout
	msg := fmt.Sprintf("hello, %s (from %s)", in.Name, h.workspace)
	if in.Shout {
		msg = strings.ToUpper(msg)
	}
	return map[string]string{"greeting": msg}, nil
}

func main() { sdk.Main(newHello()) }
