package discovery

import (
	_ "embed"
)

//go:embed js/lib.js
var jsLib string

//go:embed js/collect.js
var jsCollectBody string

//go:embed js/after.js
var jsAfterBody string

//go:embed js/probe.js
var jsProbe string

//go:embed js/action.js
var jsActionBody string

//go:embed js/clicktrack.js
var jsClickTrack string

// Page-side functions: the shared helpers pasted into each body, so every
// call is self-contained and needs no install step in a fresh world.
var (
	// jsCollect(opts) walks the document once for testids and/or
	// the trimmed tree (see collect.js).
	jsCollect = "function(opts) {\n" + jsLib + "\n" + jsCollectBody + "\n}"
	// jsAction(loc, mode, text, click) locates a target and checks or
	// prepares it for a click, a type or a wait (see action.js).
	jsAction = "async function(loc, mode, text, click) {\n" + jsLib + "\n" + jsProbe + "\n" + jsClickTrack + "\n" + jsActionBody + "\n}"
	// jsAfter(token, probe) reports what a click changed (see after.js).
	jsAfter = "function(token, probe) {\n" + jsLib + "\n" + jsProbe + "\n" + jsClickTrack + "\n" + jsAfterBody + "\n}"
)

// ProbeExpr is an Eval expression reading the page for a state provider:
// {href, readyState, elements}, elements being the presence and text of
// the first match of each selector of els (name -> selector), the same
// read a click makes before and after (see Changes).
func ProbeExpr(els map[string]string) string {
	return "(() => {\n" + jsProbe + "\nreturn { href: location.href, readyState: document.readyState, elements: probeElements(" + JSArg(els) + ") };\n})()"
}
