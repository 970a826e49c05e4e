package discovery

import (
	"regexp"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Target names the element an action works on. Exactly one field must be set;
// none or two is MM_INVALID_INPUT.
type Target struct {
	// A11yRef is a ref ("e3") from the latest snapshot or observation.
	A11yRef string `json:"a11yRef,omitempty"`
	// TestID is a data-testid value; it matches [data-testid="..."].
	TestID string `json:"testId,omitempty"`
	// Selector is a CSS selector.
	Selector string `json:"selector,omitempty"`
}

var refPattern = regexp.MustCompile(`^e[0-9]+$`)

// Validate returns an MM_INVALID_INPUT *sdk.Error unless exactly one field is
// set and a ref looks like e<number>.
func (t Target) Validate() error {
	n := 0
	for _, s := range []string{t.A11yRef, t.TestID, t.Selector} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return sdk.Errorf(sdk.CodeInvalidInput,
			"give exactly one of a11yRef, testId or selector (got %d)", n)
	}
	if t.A11yRef != "" && !refPattern.MatchString(t.A11yRef) {
		return sdk.Errorf(sdk.CodeInvalidInput,
			"a11yRef %q is not a ref like e3; take one from mm_accessibility_snapshot", t.A11yRef)
	}
	return nil
}

// String is the "target" reported in results: `[data-testid="x"]`, the
// selector, or `ref:e3`.
func (t Target) String() string {
	switch {
	case t.A11yRef != "":
		return "ref:" + t.A11yRef
	case t.TestID != "":
		return testIDSelector(t.TestID)
	default:
		return t.Selector
	}
}

// cssSelector is the CSS selector a testId or selector target queries with.
func (t Target) cssSelector() string {
	if t.TestID != "" {
		return testIDSelector(t.TestID)
	}
	return t.Selector
}

// testIDSelector quotes id as a CSS attribute string.
func testIDSelector(id string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\a `, "\r", `\d `)
	return `[data-testid="` + r.Replace(id) + `"]`
}
