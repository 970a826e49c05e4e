package builtin

import "github.com/mmcp-dev/mmcp/host/browser"

// readOnly are the built-in tools whose calls change neither the page nor
// the wallet (tools.Tool.ReadOnly), by base name: each runs while the
// previous call's step record still observes the page, instead of waiting
// for it. A tool joins only when none of its calls writes to the page (no
// scroll, focus, style, layout or tab change) or the wallet. A snapshot or
// describe_screen replaces the agent's refs: the observation it runs
// beside took the refs it marks before (session.Manager.Observe), and the
// page keeps the previous refs for that mark (js/collect.js).
var readOnly = map[string]func(decode func(any) error) bool{
	"accessibility_snapshot": always,
	"describe_screen":        always, // its screenshot is the viewport's
	"list_testids":           always,
	"get_text":               always, // reads before any scroll (js/action.js)
	"wait_for":               always, // likewise
	"get_state":              always,
	"structure_check":        always, // a walk that keeps the refs; it writes only its baseline
	"screenshot":             viewportOnly,
}

func always(func(any) error) bool { return true }

// viewportOnly: a screenshot of the viewport reads the page as it is; a
// full-page or element capture (captureBeyondViewport) lays the page out
// at another size while it captures.
func viewportOnly(decode func(any) error) bool {
	var in browser.ScreenshotOptions
	return decode(&in) == nil && !in.FullPage && in.Selector == ""
}
