package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
)

// pollInterval is how often page-side conditions are re-checked.
const pollInterval = 15 * time.Millisecond

// navigate loads url in page and waits until the document is complete.
// Chrome's own navigation errors (net::ERR_...) are returned as errors.
//
// The current document is stamped first (in the isolated world, whose
// globals die with the document), so the wait can tell the new document
// from the old one after a cross-document navigation.
func (s *Chrome) navigate(ctx context.Context, page *rod.Page, url string) error {
	_ = discovery.Eval(ctx, page, `globalThis.__mmcpOld = true`, discovery.EvalOptions{}, nil)
	res, err := proto.PageNavigate{URL: url}.Call(page.Context(ctx))
	if err != nil {
		return fmt.Errorf("navigate to %s: %w", url, err)
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", url, res.ErrorText)
	}
	// A same-document navigation (a hash change) has no loader id.
	return s.waitLoaded(ctx, page, res.LoaderID != "", nil)
}

// loadProbe is what waitLoaded reads from the page.
type loadProbe struct {
	Href       string `json:"href"`
	ReadyState string `json:"readyState"`
	Old        bool   `json:"old"`
}

// loadWait is how long one in-page wait for the load event lasts before
// the page is read again (the navigation may not have replaced the
// document yet, or ctx may have ended).
const loadWait = time.Second

// loadWaitJS answers {href, readyState, old} as soon as the document is
// complete: at once when it is, else on its load event. The stamped old
// document (when a new one is wanted) is left to be replaced: its context
// dies with it, which ends the evaluation, and the read is made again in
// the new document.
func loadWaitJS(newDoc bool) string {
	return fmt.Sprintf(`new Promise((resolve) => {
  const probe = () => ({href: location.href, readyState: document.readyState, old: !!globalThis.__mmcpOld});
  const stale = %t && !!globalThis.__mmcpOld;
  if (!stale && document.readyState === 'complete') return resolve(probe());
  if (!stale) addEventListener('load', () => resolve(probe()), {once: true});
  setTimeout(() => resolve(probe()), %d);
})`, newDoc, loadWait.Milliseconds())
}

// waitLoaded waits until the page's document is complete, is a new
// document when newDoc is set, and its URL satisfies hrefOK (when not nil):
// the load event answers an in-page wait; the page is read again after
// pollInterval only when there was no document to wait in or its URL is
// not the one wanted yet.
func (s *Chrome) waitLoaded(ctx context.Context, page *rod.Page, newDoc bool, hrefOK func(string) bool) error {
	js := loadWaitJS(newDoc)
	for {
		var p loadProbe
		err := discovery.Eval(ctx, page, js, discovery.EvalOptions{Idempotent: true}, &p)
		if err == nil {
			if strings.HasPrefix(p.Href, "chrome-error://") {
				return fmt.Errorf("the page failed to load")
			}
			if p.ReadyState == "complete" && (!newDoc || !p.Old) && (hrefOK == nil || hrefOK(p.Href)) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("wait for the page to load: %w (last error: %v)", ctx.Err(), err)
			}
			return fmt.Errorf("wait for the page to load: %w (at %s, %s)", ctx.Err(), p.Href, p.ReadyState)
		case <-time.After(pollInterval):
		}
	}
}
