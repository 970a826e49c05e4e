package discovery

import (
	"context"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/internal/redact"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TextResult is mm_get_text's result.
type TextResult struct {
	// Target is Target.String() of the target.
	Target string `json:"target"`
	// Text is the element's visible text (innerText: what is not rendered
	// is left out; a form field's value), at most maxChars characters,
	// with what looks like a secret masked.
	Text string `json:"text"`
	// Length is the length of the whole visible text.
	Length int `json:"length"`
	// Truncated is set when Text is cut at maxChars.
	Truncated bool `json:"truncated"`
	// Redacted is set when a secret was masked in Text, or a password
	// field's value was withheld.
	Redacted bool `json:"redacted,omitempty"`
}

// Text waits until the target is attached and visible, then reads its
// visible text with innerText semantics (a form field: its value; a password
// field's value is never read), at most maxChars characters (maxChars >= 1).
// What looks like a secret (redact.Mask, the rule of the step records) is
// masked. Errors: MM_INVALID_INPUT (target, maxChars), MM_TARGET_NOT_FOUND
// when nothing visible matched by ctx's deadline.
func Text(ctx context.Context, p *rod.Page, refs *RefMap, t Target, maxChars int) (TextResult, error) {
	if maxChars < 1 {
		return TextResult{}, sdk.Errorf(sdk.CodeInvalidInput, "maxChars must be at least 1, got %d", maxChars)
	}
	a, err := actionable(ctx, p, refs, t, modeText, maxChars, nil)
	if err != nil {
		return TextResult{}, err
	}
	res := TextResult{Target: t.String(), Length: a.Length, Truncated: a.Truncated}
	if a.Password {
		res.Redacted = true
		res.Text = redact.Placeholder(nil)
		return res, nil
	}
	res.Text = redact.Mask(a.Text)
	res.Redacted = res.Text != a.Text
	return res, nil
}
