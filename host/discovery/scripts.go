package discovery

import (
	_ "embed"
)

//go:embed js/lib.js
var jsLib string

//go:embed js/collect.js
var jsCollectBody string

//go:embed js/action.js
var jsActionBody string

// Page-side functions: the shared helpers pasted into each body, so every
// call is self-contained and needs no install step in a fresh world.
var (
	// jsCollect(opts, markEl) walks the document once for testids and/or
	// the trimmed tree (see collect.js).
	jsCollect = "function(opts, markEl) {\n" + jsLib + "\n" + jsCollectBody + "\n}"
	// jsAction(loc, mode, text) locates a target and checks or prepares it
	// for a click, a type or a wait (see action.js).
	jsAction = "async function(loc, mode, text) {\n" + jsLib + "\n" + jsActionBody + "\n}"
	// jsClosed() reports window.closed, true once window.close() ran.
	jsClosed = "function() { return JSON.stringify(window.closed); }"
	// jsQueryOne(sel) returns the first match (deep), or null.
	jsQueryOne = "function(sel) {\n" + jsLib + "\nconst f = locate(null, {sel});\nif (f.state === 'badselector') throw new Error(f.reason);\nreturn f.el;\n}"
)
