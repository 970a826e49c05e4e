package discovery

import (
	"context"
	"time"
)

type slowMoKey struct{}

// WithSlowMo makes every input event an action sends under ctx (a mouse
// press, a mouse release, an inserted text) wait d first: mm_launch's
// slowMo, for watching a headed run. Actions send raw CDP input events,
// which rod's own slow motion never sees.
func WithSlowMo(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, slowMoKey{}, d)
}

// slowMo waits the slow motion of ctx before one input event; it returns
// ctx's error when ctx ends first.
func slowMo(ctx context.Context) error {
	d := slowMoOf(ctx)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// slowMoOf is the slow motion of ctx, 0 when there is none.
func slowMoOf(ctx context.Context) time.Duration {
	d, _ := ctx.Value(slowMoKey{}).(time.Duration)
	return d
}
