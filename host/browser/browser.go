package browser

import (
	"context"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// Chrome is one browser (launched or attached) with the wallet extension
// loaded, its tracked tabs and the active page. Methods are safe for
// concurrent use, though the tool runner serializes calls per session
// anyway.
type Chrome struct {
	opts  Options
	log   hclog.Logger
	pages Pages

	browser  *rod.Browser
	ws       *cdp.WebSocket
	pipe     *discovery.Pipe  // on ws
	cache    *discovery.Cache // host/discovery's of this browser, bound to its pages
	wsURL    string
	launcher *launcher.Launcher // nil when attached
	pid      int
	ownsDir  bool
	userDir  string
	headed   bool // launched with a window on a display

	extID  string
	tabs   *tracker
	health *health
	// requests is the log of the dapps' EIP-1193 requests (requests.go).
	requests *confirm.Log

	cancel   context.CancelFunc // stops the event loop and rod's goroutines
	loopDone chan struct{}

	mu        sync.Mutex
	urlTab    proto.TargetTargetID          // the tab of the last URL navigation
	granted   map[string]bool               // origins with clipboard permission
	focusSet  map[proto.TargetTargetID]bool // pages with focus emulation on
	closeOnce sync.Once
	closeErr  error

	workers []proto.TargetTargetID // the extension's service workers as last seen (ReloadExtension)
	dev     devPage                // the kept chrome://extensions page (devmode.go)
}

// ExtensionID is the wallet extension's id (the host of its
// chrome-extension:// URLs).
func (s *Chrome) ExtensionID() string { return s.extID }

// DevToolsURL is the browser's DevTools WebSocket address; another client
// can attach to it (Options.CDPURL).
func (s *Chrome) DevToolsURL() string { return s.wsURL }

// PID is the launched Chrome's process id, 0 when attached.
func (s *Chrome) PID() int { return s.pid }

// UserDataDir is Chrome's profile directory ("" when attached).
func (s *Chrome) UserDataDir() string { return s.userDir }

// SlowMo is the delay before each input action (Options.SlowMo).
func (s *Chrome) SlowMo() time.Duration { return s.opts.SlowMo }

// Browser is the underlying rod browser, for callers that need CDP calls
// this package does not wrap.
func (s *Chrome) Browser() *rod.Browser { return s.browser }

// ActivePage is the page tools act on (for host/discovery). It starts as
// the extension home page; it is nil only when every extension page was
// closed, in which case the next Navigate (or the wallet's State) reopens home.
func (s *Chrome) ActivePage() *rod.Page {
	ti, ok := s.tabs.active()
	if !ok {
		return nil
	}
	return ti.Page
}

// OnActiveChange registers fn to be called whenever the active page
// changes (a tab switch, a new dapp tab, the notification popup, or the
// fallback to home when the active page closes), so the caller can drop its
// element refs. fn runs on the session's goroutines: it must not block or
// call back into the Chrome.
func (s *Chrome) OnActiveChange(fn func()) { s.tabs.addOnActive(fn) }

// Tabs is the tabs block of mm_get_state: the active tab and every tracked
// page in the order they opened.
func (s *Chrome) Tabs() observation.Tabs { return s.tabs.tabsBlock() }

// extURL is an absolute URL of an extension page.
func (s *Chrome) extURL(page string) string {
	return "chrome-extension://" + s.extID + "/" + page
}

// homeURL is the extension home page.
func (s *Chrome) homeURL() string { return s.extURL(s.pages.HomePage) }

// Eval runs a JavaScript expression in the active page's isolated world
// (the page's own globals may be scuttled), awaits a returned promise and
// decodes its JSON value into out (when not nil).
func (s *Chrome) Eval(ctx context.Context, expr string, out any) error {
	page, err := s.activePage(ctx)
	if err != nil {
		return err
	}
	return discovery.Eval(ctx, page, expr, discovery.EvalOptions{}, out)
}
