package session

import (
	"context"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
)

// dappAnswersMax bounds how long a read of a dapp's page for the agent
// (mm_accessibility_snapshot, mm_describe_screen) waits for the answers to
// the dapp's reads in flight (dappAnswered).
const dappAnswersMax = 500 * time.Millisecond

// dappAnswered waits, at most dappAnswersMax, until the dapp on page has
// the answers to the requests it made that the wallet answers without its
// user (its chain, its accounts, reads of the chain), and its handlers of
// them ran. A dapp asks these as it loads and renders what it learns a
// moment later: a snapshot before would show it half set up, and a click
// on it would wait behind the page's own work. A wallet page, or a page
// with no read in flight, is read at once. A wait that fails or runs out
// is no error: the page is read as it is.
func (m *Manager) dappAnswered(ctx context.Context, s *Session, page *rod.Page) {
	if page == nil || s.walletPage(page) {
		return
	}
	start := time.Now()
	ok, err := discovery.DappAnswered(page.Context(ctx), dappAnswersMax)
	if err != nil || !ok {
		m.log.Debug("read the dapp before its answers", "target", page.TargetID, "bound", dappAnswersMax, "error", err)
		return
	}
	m.log.Trace("the dapp's reads are answered", "target", page.TargetID, "waited", time.Since(start))
}
