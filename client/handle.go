package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// ErrRegistryDrift is matched (errors.Is) by the error Connect returns when
// the live registry does not hash to Options.ExpectedHash.
var ErrRegistryDrift = errors.New("MCP registry drift detected")

// DriftError is the error Connect returns on registry drift.
type DriftError struct {
	// Have is the live registry's hash; Want the expected one.
	Have, Want string
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("MCP registry drift detected (have %s, want %s): regenerate with `mmcp gen` (go generate ./...)", e.Have, e.Want)
}

// Is makes errors.Is(err, ErrRegistryDrift) true.
func (e *DriftError) Is(target error) bool { return target == ErrRegistryDrift }

// Options configures Connect. Exactly one of Command.Path and URL is set.
type Options struct {
	// Command spawns the server and speaks MCP over its stdio.
	Command Command
	// URL is a streamable HTTP MCP endpoint.
	URL string
	// Token is sent as a bearer token to URL.
	Token string
	// Headers are sent to URL with every request (mmcp's Mmcp-Session).
	Headers map[string]string
	// Adapter opens, closes and injects the session; nil means none.
	Adapter SessionAdapter
	// SessionKey names the session (for KeyAdapter, the injected value).
	SessionKey string
	// Log configures the JSONL call log (default: os.Stderr).
	Log LoggerOptions
	// ExpectedHash, when set, is compared with RegistryHash of the live
	// tools; a mismatch fails Connect with a *DriftError.
	ExpectedHash string
	// Logger receives diagnostics; nil discards them.
	Logger hclog.Logger
}

// Handle is an open connection to an MCP server with its session: the tools
// it lists and an Invoker that runs calls. Close it when done.
type Handle struct {
	iv    *Invoker
	tools []mcp.Tool
	hash  string
}

// Connect opens one client, lists its tools (no second process), checks the
// registry hash when Options.ExpectedHash is set, opens the adapter session
// and returns the Handle. On any failure the client is closed.
func Connect(ctx context.Context, opts Options) (*Handle, error) {
	hl := opts.Logger
	if hl == nil {
		hl = hclog.NewNullLogger()
	}
	var (
		c   *mcpclient.Client
		err error
	)
	switch {
	case opts.Command.Path != "" && opts.URL != "":
		return nil, fmt.Errorf("connect: both a command and a URL are set")
	case opts.Command.Path != "":
		c, err = SpawnStdio(ctx, opts.Command)
	case opts.URL != "":
		c, err = ConnectHTTP(ctx, opts.URL, opts.Token, opts.Headers)
	default:
		return nil, fmt.Errorf("connect: neither a command nor a URL is set")
	}
	if err != nil {
		return nil, err
	}
	// The schemas as the server sent them: the registry hash and the
	// generated handles must see what a client in any language sees.
	tools, err := ListToolsRaw(ctx, c)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect: list tools: %w", err)
	}
	hash := RegistryHash(tools)
	hl.Debug("connected", "tools", len(tools), "hash", hash)
	if opts.ExpectedHash != "" && opts.ExpectedHash != hash {
		_ = c.Close()
		return nil, &DriftError{Have: hash, Want: opts.ExpectedHash}
	}
	if opts.Adapter != nil {
		if err := opts.Adapter.Open(ctx, c, opts.SessionKey); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("connect: open session: %w", err)
		}
	}
	lo := opts.Log
	if lo.HCLog == nil {
		lo.HCLog = hl
	}
	iv := NewInvoker(c, InvokerOptions{
		Logger:     NewLogger(lo),
		Adapter:    opts.Adapter,
		SessionKey: opts.SessionKey,
		Tools:      tools,
	})
	return &Handle{iv: iv, tools: tools, hash: hash}, nil
}

// Call runs the tool name through the invoker (queued, logged, session
// injected). See Invoker.Invoke for the meaning of the error.
func (h *Handle) Call(ctx context.Context, name string, args map[string]any, opts ...CallOption) (*mcp.CallToolResult, error) {
	return h.iv.Invoke(ctx, name, args, opts...)
}

// CallEnvelope runs the tool name and decodes its envelope. A transport
// failure, a result that is not an envelope, an error result and an
// envelope with "ok": false (as its *sdk.Error) are all errors; the
// envelope is returned whenever one was decoded.
func (h *Handle) CallEnvelope(ctx context.Context, name string, args map[string]any, opts ...CallOption) (*Envelope, error) {
	res, err := h.Call(ctx, name, args, opts...)
	if err != nil {
		return nil, err
	}
	env, derr := DecodeEnvelope(res)
	if derr != nil {
		if rerr := ResultError(res); rerr != nil {
			return nil, fmt.Errorf("call %s: %w", name, rerr)
		}
		return nil, fmt.Errorf("call %s: %w", name, derr)
	}
	if err := env.Err(); err != nil {
		return env, fmt.Errorf("call %s: %w", name, err)
	}
	return env, nil
}

// Tools returns the tools the server listed at Connect.
func (h *Handle) Tools() []mcp.Tool { return h.tools }

// Hash returns RegistryHash of Tools.
func (h *Handle) Hash() string { return h.hash }

// Invoker returns the handle's invoker.
func (h *Handle) Invoker() *Invoker { return h.iv }

// Client returns the raw MCP client (calls on it bypass queue and log).
func (h *Handle) Client() *mcpclient.Client { return h.iv.c }

// Close closes the session and the transport; see Invoker.Close.
func (h *Handle) Close(ctx context.Context) error { return h.iv.Close(ctx) }
