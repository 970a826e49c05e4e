package client

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// clientName and clientVersion identify this library in the MCP handshake.
const (
	clientName    = "mmcp-go-client"
	clientVersion = "0.1.0"
)

// Command describes an MCP server process spoken to over stdio.
type Command struct {
	// Path is the executable to run.
	Path string
	// Args are the arguments after the executable name.
	Args []string
	// Env is added to the current process environment ("KEY=value").
	Env []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Stderr receives the server's stderr; nil discards it.
	Stderr io.Writer
}

// SpawnStdio starts cmd, connects an MCP client to its stdin/stdout and
// performs the initialize handshake. ctx bounds the start and the handshake
// only: the process lives until the caller closes the client.
func SpawnStdio(ctx context.Context, cmd Command) (*mcpclient.Client, error) {
	if cmd.Path == "" {
		return nil, fmt.Errorf("spawn mcp server: empty command path")
	}
	opts := []transport.StdioOption{
		transport.WithCommandFunc(func(_ context.Context, path string, env, args []string) (*exec.Cmd, error) {
			// exec.Command, not CommandContext: the child must outlive ctx.
			c := exec.Command(path, args...)
			c.Env = append(os.Environ(), env...)
			c.Dir = cmd.Dir
			return c, nil
		}),
		transport.WithCommandLogger(slog.New(slog.DiscardHandler)),
	}
	if cmd.Stderr != nil {
		opts = append(opts, transport.WithCommandStderrWriter(cmd.Stderr))
	}
	t := transport.NewStdioWithOptions(cmd.Path, cmd.Env, cmd.Args, opts...)
	c := mcpclient.NewClient(t)
	if err := start(ctx, c); err != nil {
		return nil, fmt.Errorf("spawn mcp server %s: %w", cmd.Path, err)
	}
	return c, nil
}

// ConnectHTTP connects to a streamable HTTP MCP endpoint and performs the
// initialize handshake. A non-empty token is sent as
// "Authorization: Bearer <token>" on every request, and so are headers.
func ConnectHTTP(ctx context.Context, url, token string, headers map[string]string) (*mcpclient.Client, error) {
	var opts []transport.StreamableHTTPCOption
	h := map[string]string{}
	for k, v := range headers {
		h[k] = v
	}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	if len(h) > 0 {
		opts = append(opts, transport.WithHTTPHeaders(h))
	}
	opts = append(opts, transport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	t, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect mcp server %s: %w", url, err)
	}
	c := mcpclient.NewClient(t)
	if err := start(ctx, c); err != nil {
		return nil, fmt.Errorf("connect mcp server %s: %w", url, err)
	}
	return c, nil
}

// start starts the transport and runs initialize; on failure it closes c.
func start(ctx context.Context, c *mcpclient.Client) error {
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		_ = c.Close()
		return err
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: clientVersion}
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}
