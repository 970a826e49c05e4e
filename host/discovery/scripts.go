package discovery

import (
	_ "embed"
	"strings"

	"github.com/go-rod/rod/lib/proto"
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

//go:embed js/dialoglike.js
var jsDialogLike string

//go:embed js/cover.js
var jsCoverBody string

// jsCoverLib is cover.js with the dialogLike test it uses.
var jsCoverLib = jsDialogLike + "\n" + jsCoverBody

//go:embed js/visual.js
var jsVisualBody string

//go:embed js/observe.js
var jsObserveBody string

//go:embed js/version.js
var jsVersion string

//go:embed js/settle.js
var jsSettleBody string

//go:embed js/bgquery.js
var jsBgQuery string

//go:embed js/bgtrack.js
var jsBgTrack string

// A script is a page-side function: its text, and for this package's own
// functions the name they are installed under in a world. The first call
// into a world sends every function's text once (jsInstall, about 60 KB),
// later calls only a one-line call by name.
type script struct {
	name string
	text string
}

// Page-side functions: the shared helpers pasted into each body, so every
// function is self-contained.
var (
	// jsCollect(opts) walks the document once for testids and/or
	// the trimmed tree (see collect.js).
	jsCollect = script{"collect", "function(opts) {\n" + jsLib + "\n" + jsCollectBody + "\n}"}
	// jsAction(loc, mode, text, click) locates a target and checks or
	// prepares it for a click, a type or a wait (see action.js).
	jsAction = script{"action", "async function(loc, mode, text, click) {\n" + jsLib + "\n" + jsProbe + "\n" + jsBgQuery + "\n" + jsClickTrack + "\n" + jsCoverLib + "\n" + jsActionBody + "\n}"}
	// jsCentreCover() says what covers the viewport's centre when it is
	// a modal or popover (see cover.js).
	jsCentreCover = script{"centreCover", "function() {\n" + jsLib + "\n" + jsCoverLib + "\nreturn JSON.stringify(centreCover());\n}"}
	// jsAfter(token, probe) reports what a click changed (see after.js).
	jsAfter = script{"after", "function(token, probe) {\n" + jsLib + "\n" + jsProbe + "\n" + jsBgQuery + "\n" + jsClickTrack + "\n" + jsAfterBody + "\n}"}
	// jsVisual(op, arg) steadies the page for a visual check and names
	// the elements under changed regions (see visual.js).
	jsVisual = script{"visual", "async function(op, arg) {\n" + jsLib + "\nconst v = await (async () => {\n" + jsVisualBody + "\n})();\nreturn JSON.stringify(v === undefined ? null : v);\n}"}

	// jsObserve(opts, known) is jsCollect for a step record, skipped when
	// the page has not changed since (see observe.js).
	jsObserve = script{"observe", "function(opts, known) {\n" + jsVersion + "\n" + jsObserveBody + "\n}"}

	// jsSettle(probe, quietMs, maxMs, bgSince) waits for the page to
	// settle after a click and reads the probe's elements (see settle.js).
	jsSettle = script{"settle", "function(probe, quietMs, maxMs, bgSince) {\n" + jsLib + "\n" + jsProbe + "\n" + jsBgQuery + "\n" + jsSettleBody + "\n}"}

	// jsInstall defines them all in the world's globalThis.__mmcpFns.
	jsInstall = install(jsCollect, jsAction, jsAfter, jsCentreCover, jsVisual, jsObserve, jsSettle)
)

func install(fns ...script) string {
	var b strings.Builder
	b.WriteString("globalThis.__mmcpFns = {\n")
	for _, f := range fns {
		b.WriteString(f.name + ": " + f.text + ",\n")
	}
	b.WriteString("};\n")
	return b.String()
}

// errNotInstalled is the message a call by name throws in a world without
// the scripts.
const errNotInstalled = "mmcp: scripts not installed"

// declaration is the function text to call s with: s itself for a
// script of no name, else a call by name, with the install first when
// the world does not have it yet.
func (s script) declaration(installed bool) string {
	switch {
	case s.name == "":
		return s.text
	case installed:
		return "function(...a) {\nconst f = globalThis.__mmcpFns;\nif (!f) throw new Error(" + JSArg(errNotInstalled) + ");\nreturn f." + s.name + ".apply(null, a);\n}"
	default:
		return "function(...a) {\n" + jsInstall + "return globalThis.__mmcpFns." + s.name + ".apply(null, a);\n}"
	}
}

// notInstalled reports whether res is the error of a call by name in a
// world without the scripts.
func notInstalled(res *proto.RuntimeCallFunctionOnResult) bool {
	e := res.ExceptionDetails
	return e != nil && e.Exception != nil && strings.Contains(e.Exception.Description, errNotInstalled)
}

// ProbeExpr is an Eval expression reading the page for a state provider:
// {href, readyState, origin, version, elements}, origin being the
// document's performance.timeOrigin (each document has its own), version
// the page's version (see PageVersion) and elements the presence and text of
// the first match of each selector of els (name -> selector), the same
// read a click makes before and after (see Changes).
func ProbeExpr(els map[string]string) string {
	return "(() => {\n" + jsProbe + "\n" + jsVersion + "\nreturn { href: location.href, readyState: document.readyState, origin: performance.timeOrigin, version: versionString(), elements: probeElements(" + JSArg(els) + ") };\n})()"
}
