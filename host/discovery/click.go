package discovery

import (
	"context"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/mmcp-dev/mmcp/sdk"
)

// ClickResult is mm_click's result.
type ClickResult struct {
	// Clicked is true when the mouse press and release were delivered.
	Clicked bool `json:"clicked"`
	// Target is Target.String() of the clicked target.
	Target string `json:"target"`
	// PageClosedAfterClick is set when the click closed its page (a
	// confirmation popup closing its window).
	PageClosedAfterClick bool `json:"pageClosedAfterClick,omitempty"`
}

// Click waits until the target is attached, visible, enabled, stable and not
// covered, then clicks the centre of its visible part with real mouse
// events, all within ctx's deadline (DefaultTimeout when it has none). When
// the deadline passes it fails with MM_CLICK_FAILED saying why the element
// could not be clicked (hidden, disabled, moving, covered by what), or
// MM_TARGET_NOT_FOUND when nothing matched. A click that closes the page is a
// success with PageClosedAfterClick.
func Click(ctx context.Context, p *rod.Page, refs *RefMap, t Target) (ClickResult, error) {
	a, err := actionable(ctx, p, refs, t, modeClick, "")
	if err != nil {
		return ClickResult{}, err
	}
	res := ClickResult{Clicked: true, Target: t.String()}
	pc := p.Context(ctx)
	for _, typ := range []proto.InputDispatchMouseEventType{proto.InputDispatchMouseEventTypeMousePressed, proto.InputDispatchMouseEventTypeMouseReleased} {
		if err := slowMo(ctx); err != nil {
			return ClickResult{}, err
		}
		err := proto.InputDispatchMouseEvent{
			Type: typ, X: a.X, Y: a.Y, Button: proto.InputMouseButtonLeft, Buttons: new(1), ClickCount: 1,
		}.Call(pc)
		if err != nil {
			if pageClosed(p, err) {
				res.PageClosedAfterClick = true
				return res, nil
			}
			return ClickResult{}, sdk.Errorf(sdk.CodeClickFailed, "click %s: %v", t, err).
				WithDetails(map[string]any{"target": t.String()})
		}
	}
	res.PageClosedAfterClick = closing(pc)
	return res, nil
}

// closing reports whether the page is closing or closed right after a
// click. A click handler's window.close() has run by the time the mouse
// release is acknowledged, and marks the window closed at once, while the
// target itself goes away a few milliseconds later.
func closing(p *rod.Page) bool {
	main, err := mainFrame(p)
	if err == nil {
		var closed bool
		err = evalIn(p, main, jsClosed, &closed)
		if err == nil {
			return closed
		}
	}
	return pageClosed(p, err)
}

// pageClosed reports whether p's target is gone: err is a closed-session
// error, or asking for the target's info fails.
func pageClosed(p *rod.Page, err error) bool {
	if err != nil {
		s := err.Error()
		if strings.Contains(s, cdp.ErrSessionNotFound.Message) || strings.Contains(s, "Target closed") ||
			strings.Contains(s, "No target with given id") || strings.Contains(s, "target closed") {
			return true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, ierr := p.Context(ctx).Info()
	return ierr != nil && ctx.Err() == nil
}
