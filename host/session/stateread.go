package session

import (
	"context"
	"sync"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/wallet"
)

// readFresh is how long after it ended a state read may still be taken
// by a read-only call's record (stateReads.recent). No call that may
// change the page, the wallet or the chain started or ended since the
// read started (tools.Changes), so what it may miss is a change from
// outside (a block, a dapp's request) in that gap, which a read made
// during the call could miss as well, a moment later. An agent that
// waits longer than this gets a read of its own.
const readFresh = 50 * time.Millisecond

// stateRead is one state read of the session (wallet.StateWith), in flight
// or done.
type stateRead struct {
	started time.Time     // when it started
	page    *rod.Page     // the active page when it started
	gen     uint64        // tools.Changes when it started
	done    chan struct{} // closed once st, version, err and ended are set

	st      observation.State
	version string
	err     error
	ended   time.Time
}

// stateReads is the session's latest state read, which a read-only
// call's record may take while it is recent (stateAhead, ReadAhead), and
// what a call read ahead for its own record.
type stateReads struct {
	mu      sync.Mutex
	current *stateRead // the latest started
	// ahead is ReadAhead's read (takeAhead), app the app state a
	// navigation read ahead (ReadAppAhead, takeApp).
	ahead forCall[*stateRead]
	app   forCall[*wallet.AppRead]
	// lastApp is the app read its call's record took, for a read-only
	// call that starts right after it (sharedApp).
	lastApp sharedApp
}

// sharedApp is an app state read ahead by a call, which the call's record
// took (takeApp), stamped when that call answered: tools.Changes then, and
// the time.
type sharedApp struct {
	r        *wallet.AppRead
	gen      uint64
	answered time.Time
}

// forCall is what a call started for its own step record: the record of
// that call (tools.CallID) takes it, once; no other call's record does.
type forCall[T any] struct {
	v    T
	call uint64
}

// take is the value, gone once taken, when call put it; else the zero
// value.
func (f *forCall[T]) take(call uint64) T {
	v := f.v
	if call == 0 || f.call != call {
		var zero T
		return zero
	}
	*f = forCall[T]{}
	return v
}

// readState starts a state read of the active page, the one a record
// started beside may take until it is done. It takes app, the app state
// its call read ahead (nil for none), when it is of the page it reads.
func (s *Session) readState(ctx context.Context, app *wallet.AppRead) *stateRead {
	return s.reads.start(s.wallet.ActivePage(), tools.Changes(), func() (observation.State, string, error) {
		return s.wallet.StateWith(ctx, app)
	})
}

// since is the latest read when it is of page and started after answered
// with gen (tools.Changes) as now, and has not failed; else nil. A click's
// record gives way to the viewport screenshot that follows it
// (tools.Tool.Capture), whose read ahead began as the click left the
// page: the record takes it when the page still holds for it
// (observeAhead), and the next call waits for one read, not two. Unlike
// recent it has no age bound: a record wants the state as its call left
// it, and this read is closer to that than one started now.
func (rs *stateReads) since(page *rod.Page, answered time.Time, gen uint64) *stateRead {
	rs.mu.Lock()
	r := rs.current
	rs.mu.Unlock()
	if r == nil || page == nil || r.page != page || r.gen != gen || !r.started.After(answered) {
		return nil
	}
	select {
	case <-r.done:
		if r.err != nil {
			return nil // the record tries a read of its own
		}
	default:
	}
	return r
}

// ReadAppAhead reads the wallet's app state for the step record of the
// navigation to screen that the returned context makes
// (wallet.StartAppRead), so that the record (takeApp) does not wait for
// the wallet's background after the call answered:
//   - to a wallet screen, from its page as soon as its document has
//     loaded, beside the wait for its app to render;
//   - to a URL, from the home tab as the navigation starts, beside the
//     page's load: a page that is not the wallet's changes none of the
//     wallet's fields a record reads (lock state, account, network,
//     balance) without an approval, which it cannot get meanwhile.
//
// The record still reads the pages itself: the app state is kept only
// when it is of the page and document the record reads.
func (s *Session) ReadAppAhead(ctx context.Context, screen string) context.Context {
	call := tools.CallID(ctx)
	if screen == browser.ScreenURL {
		if h, ok := s.wallet.HomeTab(); ok && h.Page != nil {
			s.reads.setApp(s.wallet.StartAppRead(ctx, h.Page), call)
		}
		return ctx
	}
	return browser.WithLoaded(ctx, func(page *rod.Page) {
		s.reads.setApp(s.wallet.StartAppRead(ctx, page), call)
	})
}

// setApp keeps r as the app state read ahead by call (tools.CallID).
func (rs *stateReads) setApp(r *wallet.AppRead, call uint64) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.app = forCall[*wallet.AppRead]{r, call}
}

// takeApp is the app state call (tools.CallID; its record's) read ahead,
// nil for none: never another call's. It stays shared for a read-only call
// that starts within readFresh after, while no call that may change the
// page, the wallet or the chain started (sharedApp).
func (rs *stateReads) takeApp(call uint64) *wallet.AppRead {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r := rs.app.take(call)
	rs.lastApp = sharedApp{r: r, gen: tools.Changes(), answered: time.Now()}
	return r
}

// sharedApp is the app state the previous call read ahead, for the state
// read of a read-only call that starts right after it answered (now, gen
// being tools.Changes): a navigation to a wallet screen, then a snapshot
// whose record reads the state beside its walk. Nothing that may change
// the wallet ran since, so the app state that read saw is the one this
// read would see but for a change from outside (a block, a dapp's
// request), as for readFresh; the read sees the page itself, and takes it
// only when it is of that page and document (wallet.StateWith). Without
// it the read asks the wallet's background again (the test wallet's
// service worker: 10-30 ms), which the next click waits for.
func (rs *stateReads) sharedApp(now time.Time, gen uint64) *wallet.AppRead {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	a := rs.lastApp
	if a.r == nil || a.gen != gen || now.Sub(a.answered) > readFresh {
		return nil
	}
	return a.r
}

// readAhead is a state read for the record of a read-only call on page,
// the active page, started as the call starts: the one still in flight or
// just ended (stateReads.recent), else a new one. It outlives the call.
func (s *Session) readAhead(ctx context.Context, page *rod.Page) *stateRead {
	if r := s.reads.recent(page, time.Now(), tools.Changes()); r != nil {
		return r
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateAheadLimit)
	r := s.readState(rctx, s.reads.sharedApp(time.Now(), tools.Changes()))
	go func() {
		<-r.done
		cancel()
	}()
	return r
}

// ReadAhead starts the state read of the step record of a read-only call
// (mm_screenshot, mm_list_testids, mm_get_text, a rootSelector snapshot)
// as the call starts, beside what the call does: its
// record, made right after, takes it (observeAhead) when the page is still
// as the read saw it, and does not wait for a read of its own, which the
// next call would wait for.
func (s *Session) ReadAhead(ctx context.Context) {
	page := s.wallet.ActivePage()
	if page == nil {
		return
	}
	s.reads.setAhead(s.readAhead(ctx, page), tools.CallID(ctx))
}

// setAhead keeps r as the read ahead of call (tools.CallID).
func (rs *stateReads) setAhead(r *stateRead, call uint64) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.ahead = forCall[*stateRead]{r, call}
}

// takeAhead is the read ReadAhead started for call (tools.CallID; its
// record's), nil for none: never another call's, which a record made
// without the observer (a tool that gathers its own observation) left.
func (rs *stateReads) takeAhead(call uint64) *stateRead {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.ahead.take(call)
}

// start runs read as the latest state read, of page, gen being
// tools.Changes now.
func (rs *stateReads) start(page *rod.Page, gen uint64, read func() (observation.State, string, error)) *stateRead {
	r := &stateRead{page: page, gen: gen, done: make(chan struct{}), started: time.Now()}
	rs.mu.Lock()
	rs.current = r
	rs.mu.Unlock()
	go func() {
		defer close(r.done)
		r.st, r.version, r.err = read()
		r.ended = time.Now()
	}()
	return r
}

// recent is the latest read when it is of page, no call that may change
// the page, the wallet or the chain started or ended since it started
// (its gen is gen, tools.Changes now), and it is in flight or ended at
// most readFresh before now; else nil. A read-only call that starts then
// may take it for its record: the read began after the previous such call
// answered, and the call changes nothing. The record still checks that
// the page holds for the read (readHolds).
func (rs *stateReads) recent(page *rod.Page, now time.Time, gen uint64) *stateRead {
	rs.mu.Lock()
	r := rs.current
	rs.mu.Unlock()
	if r == nil || r.page != page || r.gen != gen {
		return nil
	}
	select {
	case <-r.done:
		if now.Sub(r.ended) > readFresh {
			return nil
		}
		return r
	default:
		return r
	}
}

// wait returns the read's result, or ctx's error first.
func (r *stateRead) wait(ctx context.Context) (observation.State, string, error) {
	select {
	case <-r.done:
		return r.st, r.version, r.err
	case <-ctx.Done():
		return observation.State{}, "", ctx.Err()
	}
}
