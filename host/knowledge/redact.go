package knowledge

import "github.com/mmcp-dev/mmcp/internal/redact"

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

// Sensitive reports whether text typed into the field must not be stored,
// by the rule of package redact: a password input, a field whose
// attributes, label, testid, selector or accessible name name a secret, or
// text that looks like a recovery phrase or a private key.
func Sensitive(h FieldHints, text string) bool {
	return redact.WithholdTyped(redact.Field{Known: true, InputType: h.InputType, Hints: []string{
		h.Name, h.ID, h.Label, h.Placeholder, h.Autocomplete, h.AriaLabel, h.TestID, h.Selector, h.A11yName,
	}}, text)
}
