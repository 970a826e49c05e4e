package tools

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
)

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

type ownerErrKey struct{}

// WithOwnerErr marks ctx as a call whose owner could not be found (an
// attach to a session that is not there): every call that needs a session
// answers err.
func WithOwnerErr(ctx context.Context, err *sdk.Error) context.Context {
	return context.WithValue(ctx, ownerErrKey{}, err)
}

// OwnerErr is the error WithOwnerErr set, or nil.
func OwnerErr(ctx context.Context) *sdk.Error {
	e, _ := ctx.Value(ownerErrKey{}).(*sdk.Error)
	return e
}
