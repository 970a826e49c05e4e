package session

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// The in-page work of the discovery and interaction tools, on the
// session's active page and its ref map. A tool's handler decodes its
// input, calls one of these and shapes the answer. actx bounds the
// interaction (the tool's timeoutMs); ctx is the whole call's.

// TestIDs lists the visible data-testids of the active page.
func (s *Session) TestIDs(ctx context.Context, limit int) ([]observation.TestIDItem, error) {
	return discovery.TestIDs(ctx, s.browser.ActivePage(), limit)
}

// Snapshot is the trimmed accessibility tree of the active page (below
// rootSelector when given); its refs replace the session's. With
// withState, a whole-page snapshot also reads its record's state beside
// the walk and returns that read (see stateAhead; nil when none was
// started); a rootSelector snapshot starts that read too (ReadAhead), for
// its record to take.
func (s *Session) Snapshot(ctx context.Context, rootSelector string, withState bool) ([]observation.A11yNode, StateAhead, error) {
	page := s.browser.ActivePage()
	var ahead func(discovery.At) StateAhead
	switch {
	case !withState || page == nil:
	case rootSelector == "":
		ahead = s.stateAhead(ctx, page)
	default:
		// its walk reports no URL: the record checks the read itself
		s.ReadAhead(ctx)
	}
	nodes, refs, at, err := discovery.SnapshotAt(ctx, page, rootSelector)
	if err != nil {
		return nil, nil, err
	}
	s.setRefs(refs)
	if ahead == nil {
		return nodes, nil, nil
	}
	return nodes, ahead(at), nil
}

// Text is the visible text of t on the active page, at most maxChars.
func (s *Session) Text(actx context.Context, t discovery.Target, maxChars int) (discovery.TextResult, error) {
	return discovery.Text(actx, s.browser.ActivePage(), s.Refs(), t, maxChars)
}

// DescribeRef is the role and accessible name an a11yRef of the latest
// snapshot stood for.
func (s *Session) DescribeRef(ref string) (role, name string, ok bool) {
	return s.Refs().Describe(ref)
}

// Click clicks t on the active page with the wallet's screen probe. On a
// confirmation popup it also waits (within ctx) for the wallet to close
// it once the approval is settled, and it lists the tabs the click
// opened.
func (s *Session) Click(ctx, actx context.Context, t discovery.Target) (discovery.ClickResult, error) {
	page := s.browser.ActivePage()
	popup := s.browser.Tabs().Active.Role == "notification"
	var before string
	if popup {
		before = s.browser.PageHref(actx, page)
	}
	tabsBefore := s.browser.Tabs().Tracked
	res, err := discovery.Click(actx, page, s.Refs(), t, s.browser.ClickOptions(actx, page))
	if err == nil && popup && !res.PageClosedAfterClick {
		// The wallet's background closes a confirmation popup once the
		// approval is settled (MetaMask: > 500 ms).
		res.PageClosedAfterClick = s.browser.WaitPopupClosed(ctx, page, before)
	}
	if res.Changes != nil {
		res.Changes.TabsOpened = openedTabs(tabsBefore, s.browser.Tabs().Tracked)
	}
	return res, err
}

// Type replaces the value of the input t with text.
func (s *Session) Type(actx context.Context, t discovery.Target, text string) (discovery.TypeResult, error) {
	return discovery.Type(actx, s.browser.ActivePage(), s.Refs(), t, text)
}

// WaitFor waits until t is visible on the active page.
func (s *Session) WaitFor(actx context.Context, t discovery.Target) (discovery.WaitResult, error) {
	return discovery.WaitFor(actx, s.browser.ActivePage(), s.Refs(), t)
}

// Interaction returns actx for an interaction bounded by the tool's
// timeout, with the session's slow motion.
func (s *Session) Interaction(actx context.Context) context.Context {
	return discovery.WithSlowMo(actx, s.browser.SlowMo())
}

// openedTabs lists the tabs (role and URL) in after that were not in before.
func openedTabs(before, after []observation.Tab) []string {
	seen := make(map[observation.Tab]int, len(before))
	for _, t := range before {
		seen[t]++
	}
	var out []string
	for _, t := range after {
		if seen[t] > 0 {
			seen[t]--
			continue
		}
		out = append(out, t.Role+" "+t.URL)
	}
	return out
}
