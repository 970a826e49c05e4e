package chain

import (
	"regexp"
	"strings"
)

// privateKeyLine matches Anvil's "Private Keys" listing, "(0) 0x<64 hex>".
var privateKeyLine = regexp.MustCompile(`^\s*\(\d+\)\s+0x[0-9a-fA-F]{64}\s*$`)

// redact hides private keys and the given secrets (the mnemonic) in one
// line of Anvil output. Transaction hashes are kept: they never stand
// alone after an "(n)" index.
func redact(line string, secrets []string) string {
	if privateKeyLine.MatchString(line) {
		i := strings.Index(line, "0x")
		return line[:i] + "0x<redacted>"
	}
	for _, s := range secrets {
		line = strings.ReplaceAll(line, s, "<redacted>")
	}
	if strings.HasPrefix(strings.TrimSpace(line), "Mnemonic:") {
		return "Mnemonic: <redacted>"
	}
	return line
}
