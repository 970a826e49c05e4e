package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
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
	// Changes is what the click changed by the time it was answered; nil
	// when the page closed or could not be read.
	Changes *Changes `json:"changes,omitempty"`
	// MissedPresses are what earlier presses of this click landed on
	// instead of the element (it moved): the page saw none of them.
	MissedPresses []string `json:"missedPresses,omitempty"`
}

// MaxChangedTestIDs caps each testid list of Changes.
const MaxChangedTestIDs = 10

// Changes is mm_click's "what changed" summary, measured in the page right
// before the mouse press and right after the click's handlers ran (no extra
// round trip): work the page does later (a network reply, a popup the
// wallet opens) is not in it.
type Changes struct {
	// URLBefore and URLAfter are set when the click changed the URL
	// (URLBefore is empty when the click loaded a new document).
	URLBefore string `json:"urlBefore,omitempty"`
	URLAfter  string `json:"urlAfter,omitempty"`
	// TestIDsAppeared and TestIDsDisappeared are the visible testids that
	// appeared and disappeared, at most MaxChangedTestIDs each in document
	// order; the counts are set when there were more.
	TestIDsAppeared    []string `json:"testIdsAppeared,omitempty"`
	MoreAppeared       int      `json:"moreTestIdsAppeared,omitempty"`
	TestIDsDisappeared []string `json:"testIdsDisappeared,omitempty"`
	MoreDisappeared    int      `json:"moreTestIdsDisappeared,omitempty"`
	TabsOpened         []string `json:"tabsOpened,omitempty"`
	// ScreenBefore and ScreenAfter are the wallet screens the page showed
	// right before and after the click (ClickOptions.Screens; only on
	// wallet pages).
	ScreenBefore string `json:"screenBefore,omitempty"`
	ScreenAfter  string `json:"screenAfter,omitempty"`
}

// Screens names the wallet screen a page shows (package browser's state
// provider): Probe are the elements it reads (name -> CSS selector), Name
// turns the page's URL and those elements into a screen name.
type Screens struct {
	Probe map[string]string
	Name  func(ctx context.Context, url string, elements map[string]sdk.ElementProbe) string
}

// ClickOptions tunes Click.
type ClickOptions struct {
	// Screens, when set, adds the screen before and after to Changes,
	// read in the same evaluations as the rest of Changes.
	Screens *Screens
	// Pipe, when set, is the pipe on the page's Chrome connection: the
	// mouse press is sent through it, not waited for (but under slow
	// motion).
	Pipe *Pipe
	// beforePress, when set (tests), runs between the read of the
	// target's box and each press.
	beforePress func(p *rod.Page)
}

// clickArm is the click argument of js/action.js: the page checks that the
// press of click Token lands on the element, and measures what the click
// changed (at most Cap testids each way, and Probe's elements) once the
// click ran (js/clicktrack.js). Stable makes the page wait a frame for a
// stable box first (an earlier press landed elsewhere).
type clickArm struct {
	Token  int64             `json:"token"`
	Cap    int               `json:"cap"`
	Probe  map[string]string `json:"probe"`
	Stable bool              `json:"stable"`
}

// maxMisses bounds the presses of one click that land on another element
// (the page stopped them) before Click gives up.
const maxMisses = 5

// clickSeq numbers clicks, so a measure is never taken for another click.
var clickSeq atomic.Int64

// after is what js/after.js and the page's measure on the release return.
type after struct {
	Token            int64    `json:"token"`
	Closed           bool     `json:"closed"`
	Known            bool     `json:"known"`
	URLBefore        string   `json:"urlBefore"`
	URLAfter         string   `json:"urlAfter"`
	Appeared         []string `json:"appeared"`
	AppearedCount    int      `json:"appearedCount"`
	Disappeared      []string `json:"disappeared"`
	DisappearedCount int      `json:"disappearedCount"`
	// ElsBefore and ElsAfter are the screen probe's elements.
	ElsBefore map[string]sdk.ElementProbe `json:"elsBefore"`
	ElsAfter  map[string]sdk.ElementProbe `json:"elsAfter"`
	// Bg is what the page's background-request tracker saw of the click
	// (TrackBackground); nil when the page has none.
	Bg *bgRequests `json:"bg"`
	// Hit is nil when the page saw no press in the element's window,
	// empty when the press landed on the element, else what it landed on
	// (the page stopped the click's events).
	Hit *string `json:"hit"`
}

// bgRequests are the messages a click's handlers sent to the extension's
// background (Posted) and the tracker's message number before the click
// (Since: the settle waits for the requests numbered after it), as
// js/bgtrack.js counts them.
type bgRequests struct {
	Posted int `json:"posted"`
	Since  int `json:"since"`
}

// missed is what a stopped press landed on, or "".
func (a after) missed() string {
	if a.Hit == nil {
		return ""
	}
	return *a.Hit
}

func (a after) changes(ctx context.Context, sc *Screens) *Changes {
	var c *Changes
	switch {
	case a.Known:
		c = &Changes{
			TestIDsAppeared: a.Appeared, MoreAppeared: a.AppearedCount - len(a.Appeared),
			TestIDsDisappeared: a.Disappeared, MoreDisappeared: a.DisappearedCount - len(a.Disappeared),
		}
		if a.URLBefore != a.URLAfter {
			c.URLBefore, c.URLAfter = a.URLBefore, a.URLAfter
		}
	case a.URLAfter != "":
		c = &Changes{URLAfter: a.URLAfter}
	default:
		return nil
	}
	if sc != nil && sc.Name != nil {
		if a.ElsBefore != nil {
			c.ScreenBefore = sc.Name(ctx, a.URLBefore, a.ElsBefore)
		}
		if a.ElsAfter != nil {
			c.ScreenAfter = sc.Name(ctx, a.URLAfter, a.ElsAfter)
		}
	}
	return c
}

// Click waits until the target is attached, visible, enabled and not
// covered (and stable, when something may move it), then clicks the centre
// of its visible part with real mouse events, all within ctx's deadline
// (DefaultTimeout when it has none). The page checks where the press lands:
// a press that lands on another element (the element moved after its box was
// read) is stopped before the page sees it, and Click presses again once the
// box is stable, at most maxMisses times. When the deadline passes it fails
// with MM_CLICK_FAILED saying why the element could not be clicked (hidden,
// disabled, moving, covered by what), or MM_TARGET_NOT_FOUND when nothing
// matched. A click that closes the page is a success with
// PageClosedAfterClick. Changes says what the click changed. At most one
// ClickOptions is used.
func Click(ctx context.Context, p *rod.Page, refs *RefMap, t Target, opts ...ClickOptions) (ClickResult, error) {
	var o ClickOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	var probe map[string]string
	if o.Screens != nil {
		probe = o.Screens.Probe
	}
	// The binding the page reports its measure through: without it the
	// measure is asked for (one more round trip).
	bindClicked(p.Context(ctx))
	var missed []string
	for {
		arm := &clickArm{Token: clickSeq.Add(1), Cap: MaxChangedTestIDs, Probe: probe, Stable: len(missed) > 0}
		res, done, err := clickOnce(ctx, p, refs, t, arm, o)
		if err != nil {
			return ClickResult{}, err
		}
		res.MissedPresses = missed
		if done == nil || done.Closed {
			// the page closed, or what the click changed cannot be read
			return res, nil
		}
		if hit := done.missed(); hit != "" {
			if missed = append(missed, hit); len(missed) < maxMisses && ctx.Err() == nil {
				continue
			}
			return ClickResult{}, sdk.Errorf(sdk.CodeClickFailed,
				"cannot click %s: its press landed on %s instead, %d times (the element keeps moving); the page saw none of those presses", t, hit, len(missed)).
				WithDetails(map[string]any{"target": t.String(), "reason": "the press landed on " + hit, "missedPresses": missed})
		}
		// The page may close while it is read (a popup its wallet closes
		// once the request it answered is settled): a read in flight on a
		// closing page is never answered, so every read after the click
		// ends when the page goes, and the click answers that it closed.
		rctx, closed := untilClosed(ctx, p)
		res.Changes = done.changes(rctx, o.Screens)
		settleScreen(rctx, p, o.Screens, res.Changes, done)
		res.PageClosedAfterClick = closed()
		return res, nil
	}
}

// The settle after a click that left the wallet's screen as it was: the
// page must stay quiet (no DOM or URL change) for screenQuiet, within
// screenSettleMax, before the screen after is read again.
const (
	screenQuiet     = 120 * time.Millisecond
	screenSettleMax = 2 * time.Second
)

// settleScreen reads the screen after a click again once the page has
// settled, when the click's events changed no visible testid: a handler
// that awaits the wallet's background (lock, unlock) changes the route and
// re-renders a moment later, and a route change alone (the URL, and so
// the screen, changed; the new screen not drawn yet) renders on a later
// frame. Waiting here also gives the click's step record, observed right
// after, the screen the click led to rather than the one it left. A click
// that changed what shows at once (a tab, a menu, a drawn route), or a
// page that is not a wallet page, is answered as measured, without the
// wait. So is a click on a page whose background requests are tracked
// (TrackBackground) that sent the background nothing and kept its URL:
// nothing is coming that it could wait for. The settle waits for the
// requests the click sent, not for older ones (a request the wallet
// answers only when the user acts).
func settleScreen(ctx context.Context, p *rod.Page, sc *Screens, c *Changes, done *after) {
	if sc == nil || sc.Name == nil || c == nil || c.ScreenAfter == "" ||
		len(c.TestIDsAppeared) > 0 || len(c.TestIDsDisappeared) > 0 {
		return
	}
	since := 0
	if bg := done.Bg; bg != nil {
		if bg.Posted == 0 && c.URLBefore == "" {
			return
		}
		since = bg.Since
	}
	urlBefore := done.URLBefore
	if c.URLBefore != "" {
		urlBefore = c.URLBefore
	}
	main, err := mainFrame(p.Context(ctx))
	if err != nil {
		return
	}
	var s struct {
		URL string                      `json:"url"`
		Els map[string]sdk.ElementProbe `json:"els"`
	}
	// The screen is named from the settled page even when the settle saw
	// no change: a re-render may have landed between the click's own
	// measure and the settle's start.
	if evalIn(p.Context(ctx), main, jsSettle, idem, &s, sc.Probe, screenQuiet.Milliseconds(), screenSettleMax.Milliseconds(), since) != nil {
		return
	}
	c.ScreenAfter = sc.Name(ctx, s.URL, s.Els)
	if s.URL != urlBefore {
		c.URLBefore, c.URLAfter = urlBefore, s.URL
	}
}

// clickOnce waits until the target is actionable, presses and releases the
// mouse on it and reads what the page measured: nil when it cannot be read
// (the page closed, or the read failed after the click was delivered).
func clickOnce(ctx context.Context, p *rod.Page, refs *RefMap, t Target, arm *clickArm, o ClickOptions) (ClickResult, *after, error) {
	a, err := actionable(ctx, p, refs, t, modeClick, "", arm)
	if err != nil {
		return ClickResult{}, nil, err
	}
	res := ClickResult{Clicked: true, Target: t.String()}
	pc := p.Context(ctx)
	events, stop := pageEvents(pc)
	defer stop()
	gone, stopGone := targetGone(pc)
	defer stopGone()
	if o.beforePress != nil {
		o.beforePress(pc)
	}
	if err := pressRelease(ctx, pc, a.X, a.Y, o.Pipe, gone); err != nil {
		if errors.Is(err, errPageGone) || pageClosed(p, err) {
			res.PageClosedAfterClick = true
			return res, nil, nil
		}
		return ClickResult{}, nil, sdk.Errorf(sdk.CodeClickFailed, "click %s: %w", t, err).
			WithDetails(map[string]any{"target": t.String()})
	}
	done, err := afterClick(pc, arm, events, gone)
	res.PageClosedAfterClick = done.Closed
	if err != nil {
		return res, nil, nil
	}
	return res, &done, nil
}

// pressRelease presses and releases the left mouse button at x, y of p,
// the press through pipe when there is one and no slow motion, and returns
// once the page has handled the release, or with errPageGone once p's
// target is gone (gone is closed, see targetGone): a page that closes its window inside the release's
// handler (MetaMask's Confirm, Reject and Sign) never has the release
// answered.
func pressRelease(ctx context.Context, p *rod.Page, x, y float64, pipe *Pipe, gone <-chan struct{}) error {
	ev := func(typ proto.InputDispatchMouseEventType) proto.InputDispatchMouseEvent {
		return proto.InputDispatchMouseEvent{Type: typ, X: x, Y: y, Button: proto.InputMouseButtonLeft, Buttons: new(1), ClickCount: 1}
	}
	press, release := ev(proto.InputDispatchMouseEventTypeMousePressed), ev(proto.InputDispatchMouseEventTypeMouseReleased)
	if pipe != nil && slowMoOf(ctx) == 0 {
		if err := pipe.send(p.SessionID, press.ProtoReq(), press); err != nil {
			return err
		}
		return untilGone(p, release, gone)
	}
	if err := slowMo(ctx); err != nil {
		return err
	}
	if err := press.Call(p); err != nil {
		return err
	}
	if err := slowMo(ctx); err != nil {
		return err
	}
	return untilGone(p, release, gone)
}

// errPageGone is a mouse event whose page closed before answering it.
var errPageGone = errors.New("the page closed before answering the mouse event")

// untilGone dispatches e and waits for its answer, or until gone is
// closed (errPageGone; the answer that never comes is left behind).
func untilGone(p *rod.Page, e proto.InputDispatchMouseEvent, gone <-chan struct{}) error {
	ctx, cancel := context.WithCancel(p.GetContext())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.Call(p.Context(ctx)) }()
	select {
	case err := <-done:
		return err
	case <-gone:
		return errPageGone
	}
}

// targetGone returns a channel closed once p's target is destroyed or its
// session detached (the tracker's target discovery reports both on the
// browser's connection), and a func to stop watching.
func targetGone(p *rod.Page) (<-chan struct{}, func()) {
	events, stop := pageEvents(p)
	gone := make(chan struct{})
	go func() {
		for msg := range events {
			switch msg.Method {
			case (proto.TargetTargetDestroyed{}).ProtoEvent():
				var ev proto.TargetTargetDestroyed
				if msg.Load(&ev) && ev.TargetID == p.TargetID {
					close(gone)
					return
				}
			case (proto.TargetDetachedFromTarget{}).ProtoEvent():
				var ev proto.TargetDetachedFromTarget
				if msg.Load(&ev) && ev.SessionID == p.SessionID {
					close(gone)
					return
				}
			}
		}
	}()
	return gone, stop
}

// untilClosed is ctx, cancelled once p's target is destroyed or its
// session detached, and a func that stops watching and reports whether
// that happened.
func untilClosed(ctx context.Context, p *rod.Page) (context.Context, func() bool) {
	ctx, cancel := context.WithCancel(ctx)
	gone, stop := targetGone(p.Context(ctx))
	ended := make(chan bool, 1)
	go func() {
		select {
		case <-gone:
			cancel()
			ended <- true
		case <-ctx.Done():
			ended <- false
		}
	}()
	return ctx, func() bool {
		stop()
		cancel()
		return <-ended
	}
}

// clickedBinding is the binding through which the page hands over its
// measure of a click (js/clicktrack.js).
const clickedBinding = "__mmcpClicked"

// bindClicked adds clickedBinding to mmcp's isolated worlds of p's session
// once; it lasts as long as the session. Chrome installs a binding only
// while the Runtime domain is enabled (then in the worlds there are and
// those made later), so it enables it first (the host has it enabled
// already, for the page's console).
func bindClicked(p *rod.Page) {
	bindings := &cacheOf(p).bindings
	bindings.Lock()
	_, ok := bindings.m[p.SessionID]
	bindings.Unlock()
	if ok {
		return
	}
	if err := (proto.RuntimeEnable{}).Call(p); err != nil {
		return
	}
	if err := (proto.RuntimeAddBinding{Name: clickedBinding, ExecutionContextName: worldName}).Call(p); err != nil {
		return
	}
	bindings.Lock()
	if len(bindings.m) >= maxWorlds {
		clear(bindings.m)
	}
	bindings.m[p.SessionID] = struct{}{}
	bindings.Unlock()
}

// pageEvents subscribes to the browser's events until stop; the caller
// filters by session.
func pageEvents(p *rod.Page) (<-chan *rod.Message, func()) {
	b, cancel := p.Browser().Context(p.GetContext()).WithCancel()
	return b.Event(), cancel
}

// afterClick reads what click arm changed: the measure the page hands over
// through clickedBinding as the click event ends, or, should the asking
// (js/after.js) answer first, its answer; and whether the page is closing
// or closed. A click handler's window.close() has run by the time the mouse
// release is acknowledged, and marks the window closed at once, while the
// target itself goes away a few milliseconds later; a page closed from
// the release's handler may be gone before either answers (gone closes).
func afterClick(p *rod.Page, arm *clickArm, events <-chan *rod.Message, gone <-chan struct{}) (after, error) {
	type answer struct {
		a   after
		err error
	}
	asked := make(chan answer, 1)
	go func() {
		var a after
		main, err := mainFrame(p)
		if err == nil {
			err = evalIn(p, main, jsAfter, idem, &a, arm.Token, arm.Probe)
		}
		asked <- answer{a, err}
	}()
	for {
		select {
		case msg, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if msg.SessionID != p.SessionID || msg.Method != (proto.RuntimeBindingCalled{}).ProtoEvent() {
				continue
			}
			var ev proto.RuntimeBindingCalled
			var a after
			if !msg.Load(&ev) || ev.Name != clickedBinding || json.Unmarshal([]byte(ev.Payload), &a) != nil || a.Token != arm.Token {
				continue
			}
			return a, nil
		case <-gone:
			return after{Closed: true}, errPageGone
		case r := <-asked:
			if r.err == nil {
				return r.a, nil
			}
			r.a.Closed = pageClosed(p, r.err)
			return r.a, r.err
		}
	}
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
