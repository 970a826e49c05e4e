package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// pageState is what the state script reads from a page in one evaluation.
type pageState struct {
	Href       string          `json:"href"`
	ReadyState string          `json:"readyState"`
	Present    map[string]bool `json:"present"`
	Account    *string         `json:"account"`
	Network    *string         `json:"network"`
	ChainID    *string         `json:"chainId"`
	Balance    *string         `json:"balance"`
}

// stateScript builds the one expression that gathers a page's state.
func (p *Profile) stateScript() string {
	args := map[string]any{
		"landmarks":   p.landmarkIDs(),
		"account":     p.AccountSelector,
		"accountAttr": p.AccountAttr,
		"network":     p.NetworkSelector,
		"chainAttr":   p.ChainIDAttr,
		"balance":     p.BalanceSelector,
	}
	return `((p) => {
  const q = (sel) => { try { return sel ? document.querySelector(sel) : null; } catch (e) { return null; } };
  const text = (el) => el ? ((el.innerText || el.textContent || '').trim() || null) : null;
  const attr = (el, name) => (el && name) ? el.getAttribute(name) : null;
  const present = {};
  for (const id of p.landmarks) present[id] = !!q('[data-testid="' + id + '"]');
  const net = q(p.network);
  return {
    href: location.href,
    readyState: document.readyState,
    present,
    account: attr(q(p.account), p.accountAttr),
    network: text(net),
    chainId: attr(net, p.chainAttr),
    balance: text(q(p.balance)),
  };
})(` + jsArg(args) + `)`
}

// stateReadLimit bounds one state read: it takes milliseconds on a live
// page, and a page whose renderer hangs or dies never answers.
const stateReadLimit = 5 * time.Second

// readPage evaluates the state script on page.
func (s *Session) readPage(ctx context.Context, page *rod.Page) (pageState, error) {
	ctx, cancel := context.WithTimeout(ctx, stateReadLimit)
	defer cancel()
	var ps pageState
	err := s.worlds.eval(ctx, page, s.profile.stateScript(), evalOpts{idempotent: true}, &ps)
	return ps, err
}

// State reads the extension state of the active page in one isolated-world
// evaluation (spec 000 ExtensionState). On a page that is not an extension
// page (a dapp, or the notification popup) the screen is "unknown" and the
// wallet fields (unlocked, account, network, chain, balance) come from the
// extension home tab. The
// caller may override Balance from the chain.
func (s *Session) State(ctx context.Context) (observation.State, error) {
	page, err := s.activePage(ctx)
	if err != nil {
		return observation.State{}, err
	}
	ti, _ := s.tabs.get(page.TargetID)
	ps, err := s.readPage(ctx, page)
	if err != nil {
		return observation.State{}, sdk.Errorf(sdk.CodeInternal, "read page state: %v", err)
	}
	st := observation.State{
		IsLoaded:      ps.ReadyState == "complete" || ps.ReadyState == "interactive",
		CurrentURL:    ps.Href,
		ExtensionID:   s.extID,
		CurrentScreen: "unknown",
	}
	wallet := ps
	if ti.Role == RoleExtension {
		st.CurrentScreen = s.profile.Screen(ps.Href, ps.Present)
	} else if home, ok := s.tabs.home(); ok && home.Page != nil && home.ID != page.TargetID {
		// A dapp or the notification popup: the wallet's own fields come
		// from its home tab.
		wallet = pageState{}
		if hs, err := s.readPage(ctx, home.Page); err == nil {
			wallet = hs
		}
	}
	homeScreen := st.CurrentScreen
	if wallet.Href != ps.Href {
		homeScreen = s.profile.Screen(wallet.Href, wallet.Present)
	}
	st.IsUnlocked = homeScreen == "home" || homeScreen == "settings" || wallet.Present[s.profile.HomeLandmark]
	st.AccountAddress = wallet.Account
	st.NetworkName = wallet.Network
	if wallet.ChainID != nil {
		if v, ok := parseChainID(*wallet.ChainID); ok {
			st.ChainID = &v
		}
	}
	st.Balance = wallet.Balance
	return st, nil
}

// WaitForScreen polls State until the active page has loaded and, when it
// is an extension page, its screen is known (not "unknown"). It returns the
// last state read; when ctx ends first the error is MM_WAIT_TIMEOUT.
func (s *Session) WaitForScreen(ctx context.Context) (observation.State, error) {
	var last observation.State
	for {
		st, err := s.State(ctx)
		if err == nil {
			last = st
			ti, _ := s.tabs.active()
			if st.IsLoaded && (st.CurrentScreen != "unknown" || ti.Role != RoleExtension) {
				return st, nil
			}
		}
		select {
		case <-ctx.Done():
			return last, sdk.Errorf(sdk.CodeWaitTimeout, "the wallet screen did not settle (last screen %q at %s)", last.CurrentScreen, last.CurrentURL)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
