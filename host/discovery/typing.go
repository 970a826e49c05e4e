package discovery

import (
	"context"
	"unicode/utf16"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/sdk"
)

// FieldInfo describes the field typed into, so that the caller can decide
// whether the text was a secret and redact it. It never holds the value.
type FieldInfo struct {
	// Type is the input's type ("password", "text" ...), or the tag for
	// textarea and contenteditable elements.
	Type         string `json:"type"`
	Name         string `json:"name"`
	ID           string `json:"id"`
	Label        string `json:"label"`
	Placeholder  string `json:"placeholder"`
	Autocomplete string `json:"autocomplete"`
	AriaLabel    string `json:"ariaLabel"`
	TestID       string `json:"testId"`
}

// TypeResult is mm_type's result.
type TypeResult struct {
	// Typed is true when the text was inserted.
	Typed bool `json:"typed"`
	// Target is Target.String() of the field.
	Target string `json:"target"`
	// TextLength is the text's length in UTF-16 units (JavaScript's
	// text.length).
	TextLength int `json:"textLength"`
	// Field carries redaction hints; it is never serialised.
	Field FieldInfo `json:"-"`
}

// Type waits until the target is an attached, visible, enabled, stable text
// field, focuses it, selects its content and replaces it with text (inserted
// as one Input.insertText, so the field's value ends up equal to text). It
// fails with MM_TYPE_FAILED (or MM_TARGET_NOT_FOUND when nothing matched)
// when ctx's deadline passes first.
func Type(ctx context.Context, p *rod.Page, refs *RefMap, t Target, text string) (TypeResult, error) {
	a, err := actionable(ctx, p, refs, t, modeType, text, nil)
	if err != nil {
		return TypeResult{}, err
	}
	res := TypeResult{Typed: true, Target: t.String(), TextLength: len(utf16.Encode([]rune(text)))}
	if a.Field != nil {
		res.Field = *a.Field
	}
	if text != "" {
		if err := slowMo(ctx); err != nil {
			return TypeResult{}, err
		}
		if err := (proto.InputInsertText{Text: text}).Call(p.Context(ctx)); err != nil {
			return TypeResult{}, sdk.Errorf(sdk.CodeTypeFailed, "type into %s: %w", t, err).
				WithDetails(map[string]any{"target": t.String()})
		}
	}
	return res, nil
}
