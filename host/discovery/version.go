package discovery

import (
	"context"

	"github.com/go-rod/rod"
)

// PageVersion is p's version now (js/version.js), as a walk and a probe
// (ProbeExpr) report it: equal versions mean the page's DOM did not change
// between the two reads (within the version's blind spots). It is "" on a
// page with a frame or a shadow root, whose changes the version does not
// see.
func PageVersion(ctx context.Context, p *rod.Page) (string, error) {
	at, err := PageAt(ctx, p)
	return at.Version, err
}

// PageAt is where p is now: its URL, load state and version (PageVersion),
// in one read.
func PageAt(ctx context.Context, p *rod.Page) (At, error) {
	var r struct {
		At
		Version string `json:"version"`
	}
	err := Eval(ctx, p, "(() => {\n"+jsVersion+"\nreturn {href: location.href, readyState: document.readyState, "+
		"version: opaqueNow(pageVersion()) ? '' : versionString()};\n})()", EvalOptions{Idempotent: true}, &r)
	r.At.Version = r.Version
	return r.At, err
}
