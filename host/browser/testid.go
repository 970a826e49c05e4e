package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// ClickTestID clicks the element with a testid through the isolated world
// (a DOM click event, which the page's handlers receive as usual).
func ClickTestID(ctx context.Context, page *rod.Page, id string) error {
	var ok bool
	js := `((id) => { const el = document.querySelector('[data-testid="' + id + '"]'); if (!el) return false; el.click(); return true; })(` + discovery.JSArg(id) + `)`
	if err := discovery.Eval(ctx, page, js, discovery.EvalOptions{Gesture: true}, &ok); err != nil {
		return err
	}
	if !ok {
		return sdk.Errorf(sdk.CodeTargetNotFound, "no element with testid %q", id)
	}
	return nil
}

// Sleep sleeps d or until ctx ends (then returns its error).
func Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
