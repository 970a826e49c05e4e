package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/host/settings"

	"github.com/hashicorp/go-hclog"
)

// Options configures Launch.
type Options struct {
	// ChromePath is the Chrome or Chromium binary. Empty means $CHROME_PATH,
	// then the usual install locations (see FindChrome). Nothing is ever
	// downloaded.
	ChromePath string

	// Headless forces --headless=new. When false, Chrome runs headed if
	// $DISPLAY is set and headless otherwise.
	Headless bool

	// CDPURL attaches to an already running Chrome (a ws:// or http://
	// DevTools address) instead of launching one. Close then only drops the
	// connection; it never closes the user's browser.
	CDPURL string

	// ExtensionPath is the unpacked extension directory (a build's
	// dist/chrome). It is loaded with --load-extension. When attaching, it
	// is only used to compute the extension id.
	ExtensionPath string

	// UserDataDir is Chrome's profile directory. Empty means a fresh
	// directory under os.TempDir, created by Launch and removed by Close. A
	// directory given here is kept.
	UserDataDir string

	// ArtifactsDir is where Screenshot writes when ScreenshotPath is nil:
	// <ArtifactsDir>/screenshots/<name>.png. Empty means
	// <os.TempDir>/mmcp-artifacts.
	ArtifactsDir string

	// ScreenshotPath, when set, names the file Screenshot writes for a
	// sanitized name (the host's: the session's directory in the
	// knowledge store, knowledge.Store.ScreenshotPath).
	ScreenshotPath func(name string) string

	// SlowMo delays each rod input action (useful to watch a headed run).
	SlowMo time.Duration

	// Pages are the wallet extension's pages (host/wallet's Profile has
	// them). Launch refuses an empty HomePage.
	Pages Pages

	// Proxy sends Chrome's traffic through a proxy (the session's mock
	// server). Nil means none. Not applied when attaching (CDPURL).
	Proxy *Proxy

	// Localhost, when not nil, sends the pages' requests for one
	// localhost port to another (the session's own fixture port). Not
	// applied when attaching (CDPURL).
	Localhost *PortMap

	// Viewport is the page viewport of a launched Chrome's window (CSS
	// pixels). Zero means DefaultViewport. An attached Chrome keeps its
	// windows as they are.
	Viewport Viewport

	// MaxTabs is how many tabs the session holds at most; opening one more
	// closes the oldest non-extension tab first. Zero means DefaultMaxTabs.
	MaxTabs int

	// Log receives debug logs. Nil means no logging. Secrets never reach it.
	Log hclog.Logger
}

// Defaults of Options.
var (
	// DefaultViewport is the viewport most test suites and peer servers
	// use.
	DefaultViewport = settings.DefaultViewport
	// DefaultMaxTabs bounds the tabs of a session.
	DefaultMaxTabs = settings.DefaultMaxTabs
)

// withDefaults fills the zero fields that have a default.
func (o Options) withDefaults() Options {
	if o.Log == nil {
		o.Log = hclog.NewNullLogger()
	}
	if o.ArtifactsDir == "" {
		o.ArtifactsDir = filepath.Join(os.TempDir(), "mmcp-artifacts")
	}
	if o.ScreenshotPath == nil {
		dir := filepath.Join(o.ArtifactsDir, "screenshots")
		o.ScreenshotPath = func(name string) string { return filepath.Join(dir, name+".png") }
	}
	if o.Viewport == (Viewport{}) {
		o.Viewport = DefaultViewport
	}
	if o.MaxTabs <= 0 {
		o.MaxTabs = DefaultMaxTabs
	}
	return o
}

// Proxy is the proxy Chrome is launched with.
type Proxy struct {
	// Server is --proxy-server, e.g. "http://127.0.0.1:40123".
	Server string
	// Bypass is --proxy-bypass-list: the hosts Chrome reaches directly.
	Bypass string
	// SPKI is --ignore-certificate-errors-spki-list: the base64 SHA-256
	// SPKI hashes of the certificates Chrome accepts without a trusted
	// root (the proxy's CA). Never a blanket ignore.
	SPKI string
}

// PortMap sends requests for localhost:From to 127.0.0.1:To (Chrome's
// --host-resolver-rules); To 0 makes localhost:From resolve to nothing,
// so whatever listens there is never reached.
type PortMap struct{ From, To int }

// flag is the value of Chrome's --host-resolver-rules for m.
func (m PortMap) flag() string {
	if m.To == 0 {
		return fmt.Sprintf("MAP localhost:%d ~NOTFOUND", m.From)
	}
	return fmt.Sprintf("MAP localhost:%d 127.0.0.1:%d", m.From, m.To)
}
