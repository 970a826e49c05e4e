package session

import (
	"context"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// stateAheadLimit bounds a state read started beside a snapshot's walk
// (stateAhead): it outlives the call that started it.
const stateAheadLimit = 5 * time.Second

// StateAhead is the state of a read-only call's step record, read beside
// the call's own walk (tools.Call.StateAhead): ok only when it may be
// kept.
type StateAhead func(context.Context) (observation.State, bool)

// stateAhead starts the state read of a whole-page snapshot's record on
// page, the active page, as the snapshot starts (beside its wait for a
// dapp's answers and its walk), or takes the one still in flight or just
// ended (the previous call's record's, stateReads.recent): a snapshot
// changes nothing, so the state that read sees is the one the snapshot
// found, and two reads would only share the renderer and the wallet's
// background. The returned function,
// given where the walk saw the page, is what the record takes once the
// snapshot answered. The read is kept only when it ended without an error,
// page is still the active page, and it is not older than the walked
// nodes; otherwise the record reads the state after the snapshot, as
// without a read ahead.
//
//   - On a page that is not the wallet's (a dapp), the state reads only the
//     page's URL and load state; the wallet's fields come from the wallet's
//     own pages (wallet.State). It is kept when the URL and load state it
//     read are the ones at the walk (stateHolds), whatever else the page
//     changed meanwhile (a dapp renders its provider's answers while it is
//     walked).
//   - On a wallet page the state also reads the screen's elements and the
//     app state, which any DOM change may alter. It is kept when the page's
//     version (discovery.PageVersion) was the same at the state's read of
//     the page and at the walk, which is synchronous: the DOM did not
//     change between the two reads, whichever came first. A page the
//     version cannot follow (a frame, a shadow root) is read after.
func (s *Session) stateAhead(ctx context.Context, page *rod.Page) func(discovery.At) StateAhead {
	wallet := s.walletPage(page)
	r := s.readAhead(ctx, page)
	return func(at discovery.At) StateAhead {
		return func(ctx context.Context) (observation.State, bool) {
			st, version, err := r.wait(ctx)
			if ctx.Err() != nil {
				return observation.State{}, false
			}
			if err != nil || s.wallet.ActivePage() != page {
				return st, false
			}
			return st, readHolds(st, version, at, wallet)
		}
	}
}

// walletPage says whether page is one of the wallet's (its home, a
// notification popup).
func (s *Session) walletPage(page *rod.Page) bool {
	ti, _ := s.wallet.Tab(page.TargetID)
	return browser.WalletRole(ti.Role)
}

// readHolds says whether a state read (st, with the page's version at its
// probe) holds for the page at: on a wallet page the version is the same
// (the DOM the read saw is the one at), elsewhere the URL and load state
// are (stateHolds).
func readHolds(st observation.State, version string, at discovery.At, wallet bool) bool {
	if wallet {
		return version != "" && version == at.Version
	}
	return stateHolds(st, at)
}

// stateHolds says whether st, the state read on a page that is not the
// wallet's, holds for the page at: the URL and load state, the only
// fields the state reads of such a page, are the same. A record may then
// pair st with a walk of the page at, made before or after the state
// read: the state is not older than the walked nodes.
func stateHolds(st observation.State, at discovery.At) bool {
	// IsLoaded as wallet.State sets it
	loaded := at.ReadyState == "complete" || at.ReadyState == "interactive"
	return at.URL != "" && at.URL == st.CurrentURL && loaded == st.IsLoaded
}
