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
	var v string
	err := Eval(ctx, p, "(() => {\n"+jsVersion+"\nreturn opaqueNow(pageVersion()) ? '' : versionString();\n})()", EvalOptions{Idempotent: true}, &v)
	return v, err
}
