package tools

import "context"

type ownerKey struct{}

// WithOwner marks ctx as a call of owner: the MCP connection it comes from
// (an HTTP client's Mcp-Session-Id; "" over stdio). Each owner acts on its
// own wallet session.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// Owner is the owner of a call ("" when none was set).
func Owner(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}
