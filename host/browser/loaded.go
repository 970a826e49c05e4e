package browser

import (
	"context"

	"github.com/go-rod/rod"
)

type loadedKey struct{}

// WithLoaded has Navigate call f with the page of a wallet screen once its
// document has loaded, before the wait for its app to render: what f
// starts there runs beside that wait.
func WithLoaded(ctx context.Context, f func(*rod.Page)) context.Context {
	return context.WithValue(ctx, loadedKey{}, f)
}

// loaded calls the function WithLoaded put in ctx, if any.
func loaded(ctx context.Context, page *rod.Page) {
	if f, ok := ctx.Value(loadedKey{}).(func(*rod.Page)); ok {
		f(page)
	}
}
