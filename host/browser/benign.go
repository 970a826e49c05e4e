package browser

import "strings"

// benignConsole are console lines every session of the wallet's build
// prints, whatever the agent does: a diagnosis never offers them as the
// cause of a failure. The one list.
var benignConsole = []string{
	// MetaMask's UI in a page or popup without frames yet.
	"This browser doesn't support requestAnimationFrame",
	// The extension's pages and content scripts messaging a part that is
	// not up yet (or already gone): retried by the wallet.
	"Could not establish connection. Receiving end does not exist",
}

// benign reports whether a console line is one of benignConsole.
func benign(line string) bool {
	for _, b := range benignConsole {
		if strings.Contains(line, b) {
			return true
		}
	}
	return false
}

// relevant are the lines of logged that are not benign.
func relevant(logged []string) []string {
	out := []string{}
	for _, l := range logged {
		if !benign(l) {
			out = append(out, l)
		}
	}
	return out
}
