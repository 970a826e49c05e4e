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
// (readStateAhead): it outlives the call that started it.
const stateAheadLimit = 5 * time.Second

// StateAhead is the state of a read-only call's step record, read beside
// the call's own walk (tools.Call.StateAhead): ok only when it may be
// kept.
type StateAhead func(context.Context) (observation.State, bool)

// stateAhead starts the state read of a snapshot's record beside its walk
// on page, the active page. It returns the snapshot's beside hook (see
// discovery.SnapshotBeside; nil when not needed) and where the read ahead
// is put once started (nil until then, and when none was started).
//
// The state is kept only when it is not older than the walked nodes: what
// it read of page, checked once the call answered, is still so.
//   - On a wallet page the state reads the page's URL, load state, the
//     probe's elements and the app state. It is read after the page's
//     version (discovery.PageVersion) is read, right before the walk, and
//     kept only when the version is the same after both: the page's DOM
//     did not change meanwhile.
//   - On any other page (a dapp) the state reads only the page's URL and
//     load state; the wallet's fields come from the wallet's own pages.
//     It is kept when the URL and load state are still the ones it holds
//     (one small read), whatever else changed on the page: a dapp that
//     renders its provider's answers while it is walked keeps changing.
//
// Otherwise the record reads the state after the call answered, as
// without a read ahead.
func (s *Session) stateAhead(ctx context.Context, page *rod.Page, ahead *StateAhead) func(version string) {
	if ti, _ := s.browser.Tab(page.TargetID); ti.Role == browser.RoleExtension || ti.Role == browser.RoleNotification {
		return func(before string) {
			if before == "" {
				return
			}
			*ahead = s.readStateAhead(ctx, page, func(ctx context.Context, _ observation.State) bool {
				after, err := discovery.PageVersion(ctx, page)
				return err == nil && after == before
			})
		}
	}
	*ahead = s.readStateAhead(ctx, page, func(ctx context.Context, st observation.State) bool {
		var now struct{ Href, ReadyState string }
		err := discovery.Eval(ctx, page, "({href: location.href, readyState: document.readyState})", discovery.EvalOptions{Idempotent: true}, &now)
		// IsLoaded as the state read sets it (wallet.State)
		loaded := now.ReadyState == "complete" || now.ReadyState == "interactive"
		return err == nil && now.Href == st.CurrentURL && loaded == st.IsLoaded
	})
	return nil
}

// readStateAhead starts the state read and returns the function that takes
// it once the call answered: ok when the read ended without an error,
// page is still the active page and current(st) holds.
func (s *Session) readStateAhead(ctx context.Context, page *rod.Page, current func(context.Context, observation.State) bool) StateAhead {
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
		return r.st, current(ctx, r.st)
	}
}
