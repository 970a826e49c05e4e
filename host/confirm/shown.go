package confirm

import (
	_ "embed"
	"strings"
)

// ShownScript is a JavaScript expression, for the popup's isolated world,
// whose value is the Shown of the confirmation screen.
//
//go:embed shown.js
var ShownScript string

func hasPrefix(s, p string) bool { return strings.HasPrefix(s, p) }
func contains(s, p string) bool  { return strings.Contains(s, p) }
