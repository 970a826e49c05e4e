package client

import (
	"context"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// MMCPAdapter is the SessionAdapter for the mmcp host: the host has one
// session per process, so Open calls mm_launch with LaunchArgs, Close calls
// mm_cleanup, and no tool gets a session key injected.
type MMCPAdapter struct {
	// LaunchArgs are the mm_launch arguments (its input schema), for
	// example {"stateMode": "default"}. Nil sends {}.
	LaunchArgs map[string]any
}

// Open launches the session with mm_launch. A failed launch returns the
// envelope's *sdk.Error (for example MM_LAUNCH_FAILED).
func (a MMCPAdapter) Open(ctx context.Context, c *mcpclient.Client, _ string) error {
	args := a.LaunchArgs
	if args == nil {
		args = map[string]any{}
	}
	_, err := callChecked(ctx, c, "mm_launch", args)
	return err
}

// Close ends the session with mm_cleanup.
func (a MMCPAdapter) Close(ctx context.Context, c *mcpclient.Client, _ string) error {
	_, err := callChecked(ctx, c, "mm_cleanup", map[string]any{})
	return err
}

// Inject returns args unchanged: mmcp tools take no session argument.
func (MMCPAdapter) Inject(args map[string]any, _ string) map[string]any { return args }

// HasSession is always false for mmcp.
func (MMCPAdapter) HasSession(mcp.Tool) bool { return false }

var _ SessionAdapter = MMCPAdapter{}
