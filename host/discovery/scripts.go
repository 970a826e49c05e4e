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

//go:embed js/action.js
var jsActionBody string

// Page-side functions: the shared helpers pasted into each body, so every
// call is self-contained and needs no install step in a fresh world.
var (
	// jsCollect(opts) walks the document once for testids and/or
	// the trimmed tree (see collect.js).
	jsCollect = "function(opts) {\n" + jsLib + "\n" + jsCollectBody + "\n}"
	// jsAction(loc, mode, text) locates a target and checks or prepares it
	// for a click, a type or a wait (see action.js).
	jsAction = "async function(loc, mode, text) {\n" + jsLib + "\n" + jsActionBody + "\n}"
	// jsAfter(cap) reports what a click changed (see after.js).
	jsAfter = "function(cap) {\n" + jsLib + "\n" + jsAfterBody + "\n}"
)
