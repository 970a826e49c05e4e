package wallet

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// appStateTimeout bounds the main-world app-state read of one page.
const appStateTimeout = time.Second

// stateReadLimit bounds one page's state read: it takes milliseconds on a
// live page, and a page whose renderer hangs or dies never answers.
const stateReadLimit = 5 * time.Second

// pageRead is one page as the state reader saw it.
type pageRead struct {
	snap       sdk.PageSnapshot
	readyState string
	// version is the page's version at the probe (discovery.PageVersion).
	version string
}

// domProbe is what the isolated-world probe script returns.
type domProbe struct {
	Href       string                      `json:"href"`
	ReadyState string                      `json:"readyState"`
	Origin     float64                     `json:"origin"`
	Version    string                      `json:"version"`
	Elements   map[string]sdk.ElementProbe `json:"elements"`
}

// stateProvider is the session's StateSnapshotter and its probe.
func (s *Wallet) stateProvider(ctx context.Context) (sdk.StateSnapshotter, sdk.StateProbe) {
	s.probeOnce.Do(func() {
		s.provider = s.snapshot
		if s.provider == nil {
			s.provider = s.profile
		}
		p, err := s.provider.Probe(ctx, sdk.ProbeRequest{})
		if err != nil && s.log != nil {
			s.log.Warn("state snapshot probe failed; reading no elements and no app state", "error", err)
		}
		s.probe = p.Probe
	})
	return s.provider, s.probe
}

// readPage reads page for the state provider: the probe's elements in the
// isolated world, and on wallet pages the probe's script in the main world.
// The two reads run at once: the script awaits the wallet's background
// (the test wallet asks its service worker), the elements do not. The
// script's answer read ahead (ahead) is taken instead when it is of page
// and of the document the probe found (AppRead.take); the script then
// runs after the probe, only when it is not.
func (s *Wallet) readPage(ctx context.Context, page *rod.Page, role string, ahead *AppRead) (pageRead, error) {
	ctx, cancel := context.WithTimeout(ctx, stateReadLimit)
	defer cancel()
	_, probe := s.stateProvider(ctx)
	var app chan json.RawMessage
	wantApp := probe.Script != "" && browser.WalletRole(role) && ctx.Value(domOnly{}) == nil
	if ahead != nil && ahead.page != page {
		ahead = nil
	}
	if wantApp && ahead == nil {
		app = make(chan json.RawMessage, 1)
		go func() { app <- s.mainWorldValue(ctx, page, probe.Script) }()
	}
	var dp domProbe
	if err := discovery.Eval(ctx, page, discovery.ProbeExpr(probe.Elements), discovery.EvalOptions{Idempotent: true}, &dp); err != nil {
		return pageRead{}, err
	}
	r := pageRead{readyState: dp.ReadyState, version: dp.Version, snap: sdk.PageSnapshot{URL: dp.Href, Role: role, Elements: dp.Elements}}
	if r.snap.Elements == nil {
		r.snap.Elements = map[string]sdk.ElementProbe{}
	}
	switch {
	case app != nil:
		r.snap.AppState = <-app
	case wantApp:
		if r.snap.AppState = ahead.take(ctx, dp.Origin); r.snap.AppState == nil {
			r.snap.AppState = s.mainWorldValue(ctx, page, probe.Script)
		}
	}
	return r, nil
}

// mainWorldValue evaluates script in page's main world and returns its JSON
// value, or nil when it throws, returns nothing or takes too long.
func (s *Wallet) mainWorldValue(ctx context.Context, page *rod.Page, script string) json.RawMessage {
	ctx, cancel := context.WithTimeout(ctx, appStateTimeout)
	defer cancel()
	res, err := proto.RuntimeEvaluate{Expression: script, ReturnByValue: true, AwaitPromise: true}.Call(page.Context(ctx))
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		if s.log != nil {
			if err == nil && res.ExceptionDetails != nil {
				s.log.Debug("app state script threw", "text", res.ExceptionDetails.Text)
			} else if err != nil {
				s.log.Debug("app state script", "error", err)
			}
		}
		return nil
	}
	raw, err := json.Marshal(res.Result.Value)
	if err != nil || string(raw) == "null" {
		return nil
	}
	return raw
}

// State reads the extension state (mm_get_state's answer) through the
// state provider (the MetaMask profile, or a StateSnapshot plugin). The
// screen is the active page's: "unknown" on a page that is not the
// wallet's. The wallet's own fields (lock state, account, network, chain,
// balance) are read from the wallet: the active wallet page when its app
// state answers, else the home tab, else any other wallet page; a
// notification popup never makes the wallet look locked. The caller may
// override Balance from the chain.
func (s *Wallet) State(ctx context.Context) (observation.State, error) {
	st, _, err := s.StateWith(ctx, nil)
	return st, err
}

// StateWith is State with the active page's version when the state's probe
// read it (discovery.PageVersion; "" on a page that is not the wallet's):
// a walk of the page with the same version saw the DOM the state read. It
// takes ahead, the app state read ahead (StartAppRead; nil for none), when
// it is of a page and document the state reads: the active page, or the
// home tab read for the wallet's fields.
func (s *Wallet) StateWith(ctx context.Context, ahead *AppRead) (observation.State, string, error) {
	page, err := s.OpenActivePage(ctx)
	if err != nil {
		return observation.State{}, "", err
	}
	if s.log != nil {
		s.log.Trace("reading the state", "target", page.TargetID)
	}
	ti, _ := s.Tab(page.TargetID)
	// On a page that is not the wallet's, the wallet's fields come from
	// the home tab (walletPage): it is read while the active page is.
	var home *homeRead
	if h, ok := s.HomeTab(); ok && !browser.WalletRole(ti.Role) && h.Page != nil && h.ID != page.TargetID {
		home = &homeRead{id: h.ID, done: make(chan struct{})}
		go func() {
			defer close(home.done)
			home.r, home.err = s.readPage(ctx, h.Page, h.Role, ahead)
		}()
	}
	cur, err := s.readPage(ctx, page, ti.Role, ahead)
	if err != nil {
		return observation.State{}, "", sdk.Errorf(sdk.CodeInternal, "read page state: %w", err)
	}
	prov, _ := s.stateProvider(ctx)
	st := observation.State{
		IsLoaded:      cur.readyState == "complete" || cur.readyState == "interactive",
		CurrentURL:    cur.snap.URL,
		ExtensionID:   s.ExtensionID(),
		CurrentScreen: "unknown",
	}
	version := ""
	if browser.WalletRole(ti.Role) {
		st.CurrentScreen = s.detectScreen(ctx, prov, cur.snap)
		version = cur.version
	}
	wallet := s.walletPage(ctx, page.TargetID, ti.Role, cur.snap, home)
	res, err := prov.State(ctx, sdk.StateRequest{Page: wallet, SnapshotOptions: sdk.SnapshotOptions{ExtensionID: s.ExtensionID()}})
	if err != nil && s.log != nil {
		s.log.Debug("state provider", "error", err)
	}
	ws := res.Status
	if ws.IsUnlocked != nil {
		st.IsUnlocked = *ws.IsUnlocked
	}
	st.AccountAddress, st.NetworkName, st.ChainID, st.Balance = ws.AccountAddress, ws.NetworkName, ws.ChainID, ws.Balance
	if st.CurrentScreen == "error" {
		st.ErrorMessage = ws.ErrorMessage
	}
	return st, version, nil
}

// detectScreen asks the provider, keeping its answer a usable name.
func (s *Wallet) detectScreen(ctx context.Context, prov sdk.StateSnapshotter, snap sdk.PageSnapshot) string {
	res, err := prov.DetectScreen(ctx, sdk.DetectScreenRequest{Page: snap})
	name := strings.TrimSpace(res.Screen)
	if err != nil || name == "" || len(name) > 64 {
		if err != nil && s.log != nil {
			s.log.Debug("detect screen", "error", err)
		}
		return "unknown"
	}
	return name
}

// homeRead is the home tab read ahead by State.
type homeRead struct {
	id   proto.TargetTargetID
	done chan struct{}
	r    pageRead
	err  error
}

// walletPage picks the page the wallet's own fields are read from: the
// active page when it is a wallet page whose app state answered, else the
// home tab, else another wallet page with an app state, else the active
// wallet page's DOM.
func (s *Wallet) walletPage(ctx context.Context, active proto.TargetTargetID, role string, cur sdk.PageSnapshot, home *homeRead) sdk.PageSnapshot {
	if browser.WalletRole(role) && len(cur.AppState) > 0 {
		return cur
	}
	var fallback *sdk.PageSnapshot
	if browser.WalletRole(role) {
		fallback = &cur
	}
	candidates := []browser.TabInfo{}
	if home, ok := s.HomeTab(); ok {
		candidates = append(candidates, home)
	}
	candidates = append(candidates, s.FindTabs(browser.RoleExtension, "")...)
	candidates = append(candidates, s.FindTabs(browser.RoleNotification, "")...)
	seen := map[proto.TargetTargetID]bool{active: true}
	for _, tb := range candidates {
		if seen[tb.ID] || tb.Page == nil {
			continue
		}
		seen[tb.ID] = true
		var r pageRead
		var err error
		if home != nil && home.id == tb.ID {
			<-home.done
			r, err = home.r, home.err
		} else {
			r, err = s.readPage(ctx, tb.Page, tb.Role, nil)
		}
		if err != nil {
			continue
		}
		if len(r.snap.AppState) > 0 {
			return r.snap
		}
		if fallback == nil {
			fallback = &r.snap
		}
	}
	if fallback != nil {
		return *fallback
	}
	return sdk.PageSnapshot{Elements: map[string]sdk.ElementProbe{}}
}

// WaitForScreen polls State until the active page has loaded and, when it
// is an extension page, its screen is known (not "unknown"). It returns the
// last state read; when ctx ends first the error is MM_WAIT_TIMEOUT.
func (s *Wallet) WaitForScreen(ctx context.Context) (observation.State, error) {
	var last observation.State
	for polls := 1; ; polls++ {
		start := time.Now()
		st, err := s.State(ctx)
		if err == nil {
			last = st
			ti, _ := s.ActiveTab()
			if st.IsLoaded && (st.CurrentScreen != "unknown" || ti.Role != browser.RoleExtension) {
				if s.log != nil {
					s.log.Debug("screen settled", "screen", st.CurrentScreen, "reads", polls, "lastReadMs", time.Since(start).Milliseconds())
				}
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

// domOnly, as a context value, makes the state read leave out the
// wallet's app state (the probe's main-world script): WaitForFirstScreen.
type domOnly struct{}

// WaitForFirstScreen is WaitForScreen reading only the pages' DOM (route,
// landmarks, testids), not the wallet's app state: a loading MetaMask
// answers its app state only once its background has answered the page
// (getCleanAppState asks it), up to appStateTimeout later than the screen
// shows, and the launch needs only the screen and whether it is unlocked,
// which the DOM tells.
func (s *Wallet) WaitForFirstScreen(ctx context.Context) (observation.State, error) {
	return s.WaitForScreen(context.WithValue(ctx, domOnly{}, true))
}

// ClickOptions are what a click on page needs from the session: the pipe
// on its Chrome connection, and on a wallet page the screens before and
// after it.
func (s *Wallet) ClickOptions(ctx context.Context, page *rod.Page) discovery.ClickOptions {
	return discovery.ClickOptions{Screens: s.screens(ctx, page), Pipe: s.Pipe()}
}

// screens lets a click on page name the wallet screen before and after it:
// the state provider's probe and DetectScreen, without the main-world app
// state (an approval popup's screen then comes from its route and
// landmarks). Nil when page is not a wallet page.
func (s *Wallet) screens(ctx context.Context, page *rod.Page) *discovery.Screens {
	if page == nil {
		return nil
	}
	ti, _ := s.Tab(page.TargetID)
	if !browser.WalletRole(ti.Role) {
		return nil
	}
	prov, probe := s.stateProvider(ctx)
	return &discovery.Screens{
		Probe: probe.Elements,
		Name: func(ctx context.Context, url string, els map[string]sdk.ElementProbe) string {
			return s.detectScreen(ctx, prov, sdk.PageSnapshot{URL: url, Role: ti.Role, Elements: els})
		},
	}
}
