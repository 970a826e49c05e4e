package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
)

// renderWait bounds how long a call waits for a loaded wallet page to render
// its app (MetaMask's React app renders about 2 s after the document loads,
// longer while its background starts).
const renderWait = 10 * time.Second

// renderProbe is what waitRendered reads from a page.
type renderProbe struct {
	Href    string `json:"href"`
	Ready   string `json:"ready"`
	Loading bool   `json:"loading"`
	Content bool   `json:"content"`
	// Boxed is discovery.CentreBoxedJS read as the wait ended.
	Boxed bool `json:"boxed"`
}

// rendered reports whether p is a rendered app (see waitRendered).
func (p renderProbe) rendered() bool { return p.Ready == "complete" && p.Content && !p.Loading }

// renderWaitJS answers the render probe (a document that is complete,
// shows a visible testid or control and no loading screen: MetaMask's
// static fox and spinner, its loading overlay) as soon as it holds, read
// in the page on every DOM change and every few milliseconds, or after
// waitMs when it does not hold by then; the answer says whether a
// dialog-like box covers the viewport's centre then (Boxed). The page is
// read where the app renders, not polled from the host: a render is seen
// within a few milliseconds, not a host poll later.
func renderWaitJS(wait time.Duration) string {
	return fmt.Sprintf(`new Promise((resolve) => {
  const waitMs = %d;
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none' && cs.opacity !== '0';
  };
  const any = (sel) => Array.prototype.some.call(document.querySelectorAll(sel), visible);
  const probe = () => ({
    href: location.href,
    ready: document.readyState,
    loading: any('.loading-overlay, .loading-logo, .loading-spinner, [data-testid="loading-overlay"]'),
    content: any('[data-testid], button, input, select, textarea, a[href], [role="button"]'),
  });
  const start = performance.now();
  let obs = null;
  const check = () => {
    const p = probe();
    const done = p.ready === 'complete' && p.content && !p.loading;
    if (!done && performance.now() - start < waitMs) return false;
    if (obs) obs.disconnect();
    p.boxed = %s;
    resolve(p);
    return true;
  };
  if (check()) return;
  obs = new MutationObserver(() => { check(); });
  obs.observe(document, { subtree: true, childList: true, attributes: true });
  const tick = () => { if (!check()) setTimeout(tick, 5); };
  setTimeout(tick, 5);
})`, wait.Milliseconds(), discovery.CentreBoxedJS)
}

// renderEvalWait bounds one in-page render wait; the host then reads the
// page again (its document may have been replaced, or ctx may have ended).
const renderEvalWait = time.Second

// waitRendered waits, at most renderWait and within ctx, until page's app
// has rendered: a document that is complete, shows a visible testid or
// control and no loading screen. It answers the page as last read, not
// rendered when the bound passed first (the caller goes on: the page is
// what it is), and an error only when the page went away.
func (s *Chrome) waitRendered(ctx context.Context, page *rod.Page) (renderProbe, error) {
	ctx, cancel := context.WithTimeout(ctx, renderWait)
	defer cancel()
	for {
		var p renderProbe
		wait := renderEvalWait
		if dl, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(dl))
		}
		err := discovery.Eval(ctx, page, renderWaitJS(wait), discovery.EvalOptions{Idempotent: true}, &p)
		if err == nil && p.rendered() {
			return p, nil
		}
		if err != nil {
			if _, ok := s.tabs.get(page.TargetID); !ok {
				return renderProbe{}, err
			}
		}
		select {
		case <-ctx.Done():
			s.log.Debug("page did not render in time", "href", p.Href, "loading", p.Loading, "content", p.Content, "error", err)
			return p, nil
		case <-time.After(2 * pollInterval):
		}
	}
}
