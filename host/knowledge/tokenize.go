package knowledge

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// stopwords are dropped from search queries (the same list as MetaMask's
// client-mcp-core, so queries rank alike).
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "from": true, "in": true,
	"on": true, "at": true, "for": true, "with": true, "and": true, "or": true,
	"but": true, "is": true, "are": true, "was": true, "were": true, "be": true,
	"been": true, "flow": true, "test": true, "should": true, "can": true,
	"will": true, "do": true, "does": true, "did": true, "have": true,
	"has": true, "had": true, "this": true, "that": true, "these": true,
	"those": true, "it": true, "mm": true, "mcp": true, "lw": true,
}

// synonymGroups are words an agent uses interchangeably for one wallet
// action; a query token from a group also matches the others.
var synonymGroups = [][]string{
	{"send", "transfer", "pay"},
	{"receive", "deposit"},
	{"approve", "confirm", "accept", "allow"},
	{"reject", "deny", "cancel", "decline"},
	{"unlock", "password", "login", "signin"},
	{"connect", "permission", "permissions", "link", "authorize"},
	{"swap", "exchange", "trade"},
	{"sign", "signature"},
	{"import", "srp", "recovery"},
}

// maxQueryTokens bounds the expanded query so a token fits one bit of a
// uint64 mask.
const maxQueryTokens = 64

// splitLower lowercases s and splits it on every non-alphanumeric rune.
func splitLower(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// tokenize turns free text into unique tokens of two or more characters,
// without stopwords.
func tokenize(s string) []string {
	var out []string
	for _, t := range splitLower(s) {
		if len(t) >= 2 && !stopwords[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// tokenizeIdentifier splits a testid or camelCase name into its words:
// "confirmButton" and "confirm-button" both give [confirm button].
func tokenizeIdentifier(s string) []string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	var out []string
	for _, t := range splitLower(b.String()) {
		if len(t) >= 2 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// expandSynonyms adds every synonym of every token, keeping the original
// tokens first, at most maxQueryTokens in all.
func expandSynonyms(tokens []string) []string {
	out := slices.Clone(tokens)
	for _, t := range tokens {
		for _, g := range synonymGroups {
			if !slices.Contains(g, t) {
				continue
			}
			for _, syn := range g {
				if !slices.Contains(out, syn) {
					out = append(out, syn)
				}
			}
		}
	}
	if len(out) > maxQueryTokens {
		out = out[:maxQueryTokens]
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
