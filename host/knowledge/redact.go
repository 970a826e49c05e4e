package knowledge

import "strings"

// FieldHints describe the input element an mm_type call types into, as the
// browser session sees it.
type FieldHints struct {
	// InputType is the input's type attribute.
	InputType string
	// Name is the name attribute.
	Name string
	// ID is the id attribute.
	ID string
	// Label is the text of the associated <label>.
	Label string
	// Placeholder is the placeholder attribute.
	Placeholder string
	// Autocomplete is the autocomplete attribute.
	Autocomplete string
	// AriaLabel is the aria-label attribute.
	AriaLabel string
	// TestID is the data-testid attribute (or the call's testId).
	TestID string
	// Selector is the call's CSS selector.
	Selector string
	// A11yName is the accessible name of the call's a11yRef.
	A11yName string
}

// sensitiveWords mark a field as holding a secret wherever they occur.
var sensitiveWords = []string{
	"password", "passwd", "passphrase", "srp", "secret", "seed", "mnemonic",
	"recovery", "privatekey", "private key", "private-key", "private_key",
}

// Sensitive reports whether text typed into the field must not be stored:
// a password input, or a field whose attributes, label, testid, selector or
// accessible name mention a password, SRP, secret, seed, mnemonic,
// recovery phrase or private key ("pk" as a whole word).
func Sensitive(h FieldHints) bool {
	if strings.EqualFold(strings.TrimSpace(h.InputType), "password") {
		return true
	}
	for _, v := range []string{h.Name, h.ID, h.Label, h.Placeholder, h.Autocomplete, h.AriaLabel, h.TestID, h.Selector, h.A11yName} {
		if sensitiveText(v) {
			return true
		}
	}
	return false
}

func sensitiveText(v string) bool {
	if v == "" {
		return false
	}
	low := strings.ToLower(v)
	for _, w := range sensitiveWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	words := tokenizeIdentifier(v)
	for i, w := range words {
		if w == "pk" || (w == "private" && i+1 < len(words) && words[i+1] == "key") {
			return true
		}
	}
	return false
}

// Redacted replaces a secret in stored tool input.
const Redacted = "[REDACTED]"

// sensitiveKeyWords mark an input key whose value is a secret. Bare
// "seed" is not one of them: mm_launch has a harmless seedContracts key.
var sensitiveKeyWords = []string{
	"password", "passwd", "passphrase", "phrase", "srp", "secret", "mnemonic",
	"privatekey", "private_key", "private-key", "apikey", "api_key",
}

func sensitiveKey(k string) bool {
	low := strings.ToLower(k)
	for _, w := range sensitiveKeyWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	words := tokenizeIdentifier(k)
	for i, w := range words {
		if w == "pk" || (w == "private" && i+1 < len(words) && words[i+1] == "key") {
			return true
		}
	}
	return false
}

// sanitizeInput returns a copy of in without secrets: values under
// sensitive keys (at any depth) are replaced by Redacted, and so is the
// top-level "text" when the caller marked the typed text as redacted.
func sanitizeInput(in map[string]any, textRedacted bool) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		if textRedacted && k == "text" {
			out[k] = Redacted
			continue
		}
		out[k] = sanitizeValue(k, v)
	}
	return out
}

func sanitizeValue(k string, v any) any {
	if sensitiveKey(k) {
		return Redacted
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for kk, vv := range t {
			out[kk] = sanitizeValue(kk, vv)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, vv := range t {
			out[i] = sanitizeValue("", vv)
		}
		return out
	}
	return v
}
