package session

import (
	"context"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// stateAheadLimit bounds a state read started beside a call's walk
// (stateAhead): it outlives the call that started it.
const stateAheadLimit = 5 * time.Second

// StateAhead is the state of a read-only call's step record, read beside
// the call's own walk (tools.Call.StateAhead): ok only when it may be
// kept.
type StateAhead func(context.Context) (observation.State, bool)

// stateAhead starts the state read of a snapshot's record on page, the
// active page, beside the snapshot's walk, and returns the function that
// takes it once the snapshot answered; nil on a wallet page.
//
// On a page that is not the wallet's (a dapp), the state reads only the
// page's URL and load state; the wallet's fields come from the wallet's
// own pages (wallet.State). The read is kept when page is still the
// active page and its URL and load state are still the ones read (one
// small read, after the walk): the state is then not older than the
// walked nodes, whatever else the page changed meanwhile (a dapp renders
// its provider's answers while it is walked). Otherwise the record reads
// the state after the snapshot, as without a read ahead.
//
// On a wallet page the state also reads the screen's elements and the
// app state, which any DOM change may alter: it is read after the
// snapshot as before. Reading it ahead there slowed the snapshot (its
// reads share the page's renderer with the walk) and did not shorten the
// next call's wait (docs/speed.md).
func (s *Session) stateAhead(ctx context.Context, page *rod.Page) StateAhead {
	if ti, _ := s.browser.Tab(page.TargetID); ti.Role == browser.RoleExtension || ti.Role == browser.RoleNotification {
		return nil
	}
	type read struct {
		st  observation.State
		err error
	}
	done := make(chan read, 1)
	go func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateAheadLimit)
		defer cancel()
		st, err := s.browser.State(rctx)
		done <- read{st, err}
	}()
	return func(ctx context.Context) (observation.State, bool) {
		var r read
		select {
		case r = <-done:
		case <-ctx.Done():
			return observation.State{}, false
		}
		if r.err != nil || s.browser.ActivePage() != page {
			return observation.State{}, false
		}
		var now struct{ Href, ReadyState string }
		err := discovery.Eval(ctx, page, "({href: location.href, readyState: document.readyState})", discovery.EvalOptions{Idempotent: true}, &now)
		// IsLoaded as wallet.State sets it
		loaded := now.ReadyState == "complete" || now.ReadyState == "interactive"
		return r.st, err == nil && now.Href == r.st.CurrentURL && loaded == r.st.IsLoaded
	}
}
