package discovery

import (
	"regexp"
	"strings"
)

// MaskPreset is what a mask preset covers: texts by what they say, and
// elements by a CSS selector.
type MaskPreset struct {
	Name     string        `json:"name"`
	Texts    []TextPattern `json:"texts"`
	Selector string        `json:"selector"`
}

// TextPattern is a kind of text and the pattern that finds it: a regular
// expression both Go's regexp and the page's RegExp read the same way
// (no lookaround, no \u escapes: literal characters).
type TextPattern struct {
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
}

// WalletPreset is the "wallet" mask preset: the text that differs
// between sessions of the same screen (a network named after its port,
// account addresses and hashes, balances and fiat values, dates and
// times) and identicons, drawn from the address. mm_visual_check paints
// over them; mm_structure_check puts <kind> in their place in names.
var WalletPreset = MaskPreset{
	Name: "wallet",
	Texts: []TextPattern{
		{"network", `\b(?:Localhost|localhost|127\.0\.0\.1)[ :]\d{2,5}\b`},
		{"address", `\b0x[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?\b`},
		{"address", `\b0x[0-9a-fA-F]{2,10}(?:\.{2,3}|…)[0-9a-fA-F]{2,10}\b`},
		{"balance", `(?:<\s?)?-?\d[\d,]*(?:\.\d+)?\s?[A-Z][A-Z0-9]{1,5}\b`},
		{"balance", `(?:^|\s)-\s[A-Z][A-Z0-9]{1,5}\b`},
		{"fiat", `[$€£¥]\s?-?\d[\d,]*(?:\.\d+)?`},
		{"time", `\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?\b`},
		{"date", `\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:, \d{4})?\b`},
	},
	Selector: `.identicon,[class*="jazzicon"],[class*="avatar-account"],[data-testid*="identicon"],[data-testid*="avatar-account"]`,
}

// presetRes are the compiled patterns of presets, by name.
var presetRes = map[string][]*regexp.Regexp{}

func init() {
	for _, t := range WalletPreset.Texts {
		presetRes[WalletPreset.Name] = append(presetRes[WalletPreset.Name], regexp.MustCompile(t.Pattern))
	}
}

// Placeholders replaces the texts p finds in s with <kind>: what a
// structure baseline keeps of a name that differs between sessions.
func (p MaskPreset) Placeholders(s string) string {
	for i, re := range presetRes[p.Name] {
		kind := "<" + p.Texts[i].Kind + ">"
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			lead := m[:len(m)-len(strings.TrimLeft(m, " \t"))]
			return lead + kind
		})
	}
	return s
}
