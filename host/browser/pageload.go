package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// pollInterval is how often page-side conditions are re-checked.
const pollInterval = 15 * time.Millisecond

// navigate loads url in page and waits until the document is complete.
// Chrome's own navigation errors (net::ERR_...) are returned as errors.
//
// The current document is stamped first (in the isolated world, whose
// globals die with the document), so the wait can tell the new document
// from the old one after a cross-document navigation.
func (s *Session) navigate(ctx context.Context, page *rod.Page, url string) error {
	_ = s.worlds.eval(ctx, page, `globalThis.__mmcpOld = true`, evalOpts{}, nil)
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

const loadProbeJS = `({href: location.href, readyState: document.readyState, old: !!globalThis.__mmcpOld})`

// waitLoaded polls until the page's document is complete, is a new
// document when newDoc is set, and its URL satisfies hrefOK (when not nil).
func (s *Session) waitLoaded(ctx context.Context, page *rod.Page, newDoc bool, hrefOK func(string) bool) error {
	for {
		var p loadProbe
		err := s.worlds.eval(ctx, page, loadProbeJS, evalOpts{idempotent: true}, &p)
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
