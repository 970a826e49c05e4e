package mmcp

import (
	"context"
	"fmt"
	"strings"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/client"
)

// Prefix is the tool prefix of mmcp's own tools.
const Prefix = "mm"

// OwnHash is client.RegistryHash of the tools named "<Prefix>_*" in tools:
// the hash RegistryHash is compared with.
func OwnHash(tools []mcp.Tool) string {
	var own []mcp.Tool
	for _, t := range tools {
		if strings.HasPrefix(t.Name, Prefix+"_") {
			own = append(own, t)
		}
	}
	return client.RegistryHash(own)
}

// Open connects like Connect, but checks RegistryHash against mmcp's own
// tools only (plugin tools are ignored), on the same client and before the
// session is opened. A mismatch fails with a *client.DriftError (errors.Is
// client.ErrRegistryDrift). opts.ExpectedHash, when set, overrides
// RegistryHash.
func Open(ctx context.Context, opts client.Options) (*Handle, error) {
	want := opts.ExpectedHash
	if want == "" {
		want = RegistryHash
	}
	opts.ExpectedHash = ""
	opts.Adapter = driftAdapter{inner: opts.Adapter, want: want}
	h, err := client.Connect(ctx, opts)
	if err != nil {
		return nil, err
	}
	return Wrap(h), nil
}

// driftAdapter checks the own-tools hash when the session opens, then
// defers to inner (nil: no session).
type driftAdapter struct {
	inner client.SessionAdapter
	want  string
}

// Open lists the tools on c, compares their hash, then opens inner.
func (a driftAdapter) Open(ctx context.Context, c *mcpclient.Client, key string) error {
	tools, err := client.ListToolsRaw(ctx, c)
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	if have := OwnHash(tools); have != a.want {
		return &client.DriftError{Have: have, Want: a.want}
	}
	if a.inner == nil {
		return nil
	}
	return a.inner.Open(ctx, c, key)
}

// Close closes inner.
func (a driftAdapter) Close(ctx context.Context, c *mcpclient.Client, key string) error {
	if a.inner == nil {
		return nil
	}
	return a.inner.Close(ctx, c, key)
}

// Inject defers to inner.
func (a driftAdapter) Inject(args map[string]any, key string) map[string]any {
	if a.inner == nil {
		return args
	}
	return a.inner.Inject(args, key)
}

// HasSession defers to inner.
func (a driftAdapter) HasSession(t mcp.Tool) bool {
	return a.inner != nil && a.inner.HasSession(t)
}
