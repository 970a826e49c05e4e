// Package redact is the one redaction rule of mmcp, shared by the host's
// step records and log and by the client's JSONL call log and sidecars:
//
//   - a value under a secret-named key (password, srp, mnemonic, private
//     key ...) is withheld, at any depth;
//   - typed or pasted text (a "text" argument, at any depth, batches
//     included) is withheld unless the field it goes into is known to be
//     harmless (only the host, which inspects the element, can know that);
//   - any other string is passed through the secret detector (Mask), which
//     masks BIP-39 word runs of 12 or more words and 32-byte hex keys.
//
// A withheld value is written as Placeholder(value): its length, never its
// content.
package redact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextKey is the argument that carries typed or pasted text (mm_type,
// mm_clipboard, and the text argument of other servers' typing tools).
const TextKey = "text"

// ClipboardTool is the base name of the clipboard tool (mm_clipboard
// with the default prefix): the text its read answers is what was pasted
// or written there, withheld as the written text was.
const ClipboardTool = "clipboard"

// ReadBack withholds the text a call of tool answered when that text is
// pasted text read back (the clipboard tool's result.text, in the
// envelope JSON envelope): it returns the envelope with the text replaced
// by its Placeholder, and the text as a secret to scrub elsewhere. Any
// other answer is returned unchanged.
func ReadBack(tool, envelope string) (string, []string) {
	if tool != ClipboardTool && !strings.HasSuffix(tool, "_"+ClipboardTool) {
		return envelope, nil
	}
	var env map[string]any
	if json.Unmarshal([]byte(envelope), &env) != nil {
		return envelope, nil
	}
	res, _ := env["result"].(map[string]any)
	text, ok := res[TextKey].(string)
	if !ok {
		return envelope, nil
	}
	res[TextKey] = Placeholder(text)
	b, err := json.Marshal(env)
	if err != nil {
		return envelope, nil
	}
	return string(b), []string{text}
}

// placeholderPrefix starts every placeholder.
const placeholderPrefix = "[redacted"

// Placeholder is what a withheld value is written as: "[redacted N chars]"
// for a string, "[redacted]" for anything else.
func Placeholder(v any) string {
	if s, ok := v.(string); ok {
		if IsPlaceholder(s) {
			return s // already withheld: keep the original length
		}
		return fmt.Sprintf("%s %d chars]", placeholderPrefix, utf8.RuneCountInString(s))
	}
	return placeholderPrefix + "]"
}

// placeholderRE matches a whole placeholder.
var placeholderRE = regexp.MustCompile(`^\[redacted( [0-9]+ (chars|words))?\]$`)

// IsPlaceholder reports whether v is exactly a placeholder.
func IsPlaceholder(v any) bool {
	s, ok := v.(string)
	return ok && placeholderRE.MatchString(s)
}

// HasPlaceholder reports whether v is or contains a placeholder (a string
// Mask changed): the value the caller sent is not known.
func HasPlaceholder(v any) bool {
	s, ok := v.(string)
	return ok && strings.Contains(s, placeholderPrefix)
}

// secretWords are the words that mark a field, an argument or a target as
// holding a secret: the one list of the host's recorder and the client's
// logger. Each entry is one or more identifier words ("private key"
// matches privateKey, private-key, private_key, "Private key"). Long ones
// also match inside a longer word (newPassword, seedphrase).
var secretWords = [][]string{
	{"password"}, {"passwd"}, {"passphrase"}, {"pwd"}, {"pw"}, {"pass"},
	{"srp"}, {"secret"}, {"mnemonic"}, {"phrase"}, {"recovery"},
	{"seed", "phrase"}, {"seed", "words"}, {"seedphrase"}, {"seed"},
	{"private", "key"}, {"privatekey"}, {"pk"}, {"api", "key"}, {"apikey"},
}

// minInnerWord is the shortest secret word matched inside a longer word:
// shorter ones (pw, pk, srp) would match unrelated words (upward, spk).
const minInnerWord = 6

// SecretName reports whether an identifier (an argument name, a testid, a
// CSS selector, an element's name, id, label or accessible name) names a
// secret. "seed" alone counts only as the whole identifier: seedContracts
// and mm_seed_contract are not secrets.
func SecretName(s string) bool {
	if s == "" {
		return false
	}
	words := Words(s)
	joined := strings.Join(words, "")
	for _, w := range secretWords {
		if len(w) == 1 && w[0] == "seed" {
			if len(words) == 1 && words[0] == "seed" {
				return true
			}
			continue
		}
		if hasRun(words, w) {
			return true
		}
		if len(w) == 1 && len(w[0]) >= minInnerWord && strings.Contains(joined, w[0]) {
			return true
		}
	}
	return false
}

// hasRun reports whether seq occurs as consecutive words in words.
func hasRun(words, seq []string) bool {
	for i := 0; i+len(seq) <= len(words); i++ {
		ok := true
		for j, s := range seq {
			if words[i+j] != s {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Words splits an identifier into lower-case words: at every character
// that is not a letter or digit, and between camelCase humps
// ("newPassword#pw-new" is new, password, pw, new).
func Words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) && len(cur) > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// Field is what is known about the element text is typed into.
type Field struct {
	// Known is true when the element itself was inspected (the host knows
	// its attributes); false when only the call's arguments are known (a
	// client), and then the text is always withheld.
	Known bool
	// InputType is the element's type attribute.
	InputType string
	// Hints are the element's name, id, label, placeholder, autocomplete,
	// aria-label and testid, and the call's target (testId, selector, the
	// accessible name of an a11yRef).
	Hints []string
}

// WithholdTyped reports whether text typed or pasted into f must be
// withheld: unless the field is known, is not a password input, none of
// its hints names a secret and the text does not look like one.
func WithholdTyped(f Field, text string) bool {
	if !f.Known || strings.EqualFold(strings.TrimSpace(f.InputType), "password") {
		return true
	}
	for _, h := range f.Hints {
		if SecretName(h) {
			return true
		}
	}
	return Mask(text) != text
}
