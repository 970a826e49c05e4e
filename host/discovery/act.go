package discovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultTimeout bounds an action whose context has no deadline (the
// tools' timeoutMs default).
const DefaultTimeout = 30 * time.Second

// bounded is ctx, with DefaultTimeout when it has no deadline.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}

// mode selects what js/action.js checks and prepares.
type mode string

const (
	modeClick mode = "click"
	modeType  mode = "type"
	modeWait  mode = "wait"
	modeText  mode = "text"
)

// attempt is one run of js/action.js.
type attempt struct {
	State  string     `json:"state"`
	Count  int        `json:"count"`
	Reason string     `json:"reason"`
	X      float64    `json:"x"`
	Y      float64    `json:"y"`
	Field  *FieldInfo `json:"field"`
	// Text, Length and Truncated are mode text's read (Length: of the
	// whole text, Truncated: Text is cut);
	// Password is set for a password field, whose value is not read.
	Text      string `json:"text"`
	Length    int    `json:"length"`
	Truncated bool   `json:"truncated"`
	Password  bool   `json:"password"`
	// Cover is what covers a click's target (state "covered").
	Cover *cover `json:"cover"`
}

// actionable polls js/action.js until the target is ready for m or ctx ends.
// Stale and unknown refs fail at once; the deadline yields the error of m
// with the last reason the element was not ready.
// click (nil but for a click) arms the page's measure of what the click
// changes (js/clicktrack.js armClick). A click target covered by another
// element at every try for CoveredFor fails at once with MM_TARGET_COVERED
// (see coveredError). text is mode type's text, or mode text's most
// characters.
func actionable(ctx context.Context, p *rod.Page, refs *RefMap, t Target, m mode, text any, click *clickArm) (attempt, error) {
	if err := t.Validate(); err != nil {
		return attempt{}, err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return attempt{}, deadlineOr(ctx, err, attempt{State: "missing"}, t, m)
	}

	var last attempt
	var coveredSince time.Time
	backoff := 10 * time.Millisecond
	for {
		a, err := tryOnce(p, main, refs, t, m, text, click)
		if err != nil {
			var se *sdk.Error
			if errors.As(err, &se) {
				return attempt{}, err
			}
			switch {
			case ctx.Err() != nil:
			case contextGone(err):
				// a navigation is under way: poll again in the new document
				last = attempt{State: "missing", Reason: "the page was navigating"}
			default:
				return attempt{}, fmt.Errorf("%s %s: %w", m, t, err)
			}
		}
		switch {
		case err != nil:
		case a.State == "ok":
			return a, nil
		case a.State == "stale":
			why := a.Reason
			if why == "" {
				why = "points at an element that is no longer in the page"
			}
			return attempt{}, staleRef(t.A11yRef, why)
		case a.State == "badselector":
			return attempt{}, sdk.Errorf(sdk.CodeInvalidInput, "selector %q is not valid CSS: %s", t.Selector, a.Reason).
				WithDetails(map[string]any{"target": t.String()})
		case a.State == "covered" && a.Cover != nil && !a.Cover.transient():
			if coveredSince.IsZero() {
				coveredSince = time.Now()
			} else if time.Since(coveredSince) >= CoveredFor {
				return attempt{}, coveredError(t, a)
			}
			last = a
		default:
			last = a
		}
		if a.State != "covered" || a.Cover == nil || a.Cover.transient() {
			coveredSince = time.Time{}
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
			backoff = min(backoff*2, 100*time.Millisecond)
			continue
		}
		break
	}
	return last, deadlineOr(ctx, ctx.Err(), last, t, m)
}

// tryOnce locates and checks the target once.
func tryOnce(p *rod.Page, main proto.PageFrameID, refs *RefMap, t Target, m mode, text any, click *clickArm) (attempt, error) {
	var a attempt
	var arm any // untyped nil: undefined in the page
	if click != nil {
		arm = click
	}
	if t.A11yRef == "" {
		err := evalIn(p, main, jsAction, idem, &a, map[string]any{"sel": t.cssSelector()}, string(m), text, arm)
		return a, err
	}
	h, err := resolveRef(p, refs, t.A11yRef)
	if err != nil {
		return a, err
	}
	return a, evalIn(p, main, jsAction, idem, &a, h.loc, string(m), text, arm)
}

// deadlineOr turns the end of ctx into the domain error of m.
func deadlineOr(ctx context.Context, err error, last attempt, t Target, m mode) error {
	if ctx.Err() == nil {
		return err
	}
	details := map[string]any{"target": t.String(), "matched": last.Count}
	if last.Reason != "" {
		details["reason"] = last.Reason
	}
	if m == modeWait {
		msg := fmt.Sprintf("%s did not become visible in time", t)
		if last.Reason != "" {
			msg += ": " + last.Reason
		}
		return sdk.Errorf(sdk.CodeWaitTimeout, "%s", msg).WithDetails(details)
	}
	if last.State == "" || last.State == "missing" || m == modeText {
		if m == modeText && last.Reason != "" {
			return sdk.Errorf(sdk.CodeTargetNotFound, "%s has no visible text to read: %s", t, last.Reason).WithDetails(details)
		}
		return sdk.Errorf(sdk.CodeTargetNotFound, "no element matches %s; check mm_list_testids or take a fresh snapshot", t).
			WithDetails(details)
	}
	code := sdk.CodeClickFailed
	if m == modeType {
		code = sdk.CodeTypeFailed
	}
	return sdk.Errorf(code, "cannot %s %s: %s", m, t, last.Reason).WithDetails(details)
}
