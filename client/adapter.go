package client

import (
	"context"
	"fmt"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// SessionAdapter maps a server's session model onto a Handle: how a session
// is opened and closed, and which tools need the session key in their
// arguments. Open and Close talk to the raw client; their calls are not
// logged and not queued.
type SessionAdapter interface {
	// Open starts the session named key.
	Open(ctx context.Context, c *mcpclient.Client, key string) error
	// Close ends the session named key.
	Close(ctx context.Context, c *mcpclient.Client, key string) error
	// Inject returns args with the session key added. It must not modify
	// args in place.
	Inject(args map[string]any, key string) map[string]any
	// HasSession reports whether calls to t need Inject.
	HasSession(t mcp.Tool) bool
}

// DefaultSessionKey is the argument name KeyAdapter uses when Key is empty.
const DefaultSessionKey = "sessionName"

// KeyAdapter is a SessionAdapter for servers that name sessions with one
// string argument: every tool whose input schema has the property Key gets
// the session key injected, and OpenTool/CloseTool (when set) are called with
// {Key: key} to open and close the session.
type KeyAdapter struct {
	// Key is the argument name; empty means DefaultSessionKey.
	Key string
	// OpenTool is called by Open; empty means Open does nothing.
	OpenTool string
	// CloseTool is called by Close; empty means Close does nothing.
	CloseTool string
}

func (a KeyAdapter) key() string {
	if a.Key == "" {
		return DefaultSessionKey
	}
	return a.Key
}

// Open calls OpenTool with the session key.
func (a KeyAdapter) Open(ctx context.Context, c *mcpclient.Client, key string) error {
	if a.OpenTool == "" {
		return nil
	}
	_, err := callChecked(ctx, c, a.OpenTool, map[string]any{a.key(): key})
	return err
}

// Close calls CloseTool with the session key.
func (a KeyAdapter) Close(ctx context.Context, c *mcpclient.Client, key string) error {
	if a.CloseTool == "" {
		return nil
	}
	_, err := callChecked(ctx, c, a.CloseTool, map[string]any{a.key(): key})
	return err
}

// Inject returns a copy of args with Key set to key, unless args already
// sets Key (an explicit argument wins, like {sessionName, ...args} in JS).
func (a KeyAdapter) Inject(args map[string]any, key string) map[string]any {
	if _, ok := args[a.key()]; ok {
		return args
	}
	out := make(map[string]any, len(args)+1)
	for k, v := range args {
		out[k] = v
	}
	out[a.key()] = key
	return out
}

// HasSession reports whether t's input schema declares the property Key.
func (a KeyAdapter) HasSession(t mcp.Tool) bool {
	_, ok := schemaProperties(t)[a.key()]
	return ok
}

// schemaProperties returns the top-level properties of t's input schema,
// whether the tool carries a structured or a raw schema.
func schemaProperties(t mcp.Tool) map[string]any {
	s, err := inputSchema(t)
	if err != nil {
		return nil
	}
	return s.Properties
}

// callChecked calls a tool on the raw client and turns an error result or an
// envelope with "ok": false into a Go error.
func callChecked(ctx context.Context, c *mcpclient.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	if err := ResultError(res); err != nil {
		return res, fmt.Errorf("call %s: %w", name, err)
	}
	return res, nil
}

var _ SessionAdapter = KeyAdapter{}
