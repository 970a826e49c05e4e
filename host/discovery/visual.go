package discovery

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Box is a box in CSS pixels of the document (page coordinates).
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Frame is what Steady measured: the viewport, its scroll position, the
// document's size, the device pixel ratio, and the boxes of the scope and
// mask targets.
type Frame struct {
	Width     float64 `json:"width"`
	Height    float64 `json:"height"`
	DPR       float64 `json:"dpr"`
	ScrollX   float64 `json:"scrollX"`
	ScrollY   float64 `json:"scrollY"`
	DocWidth  float64 `json:"docWidth"`
	DocHeight float64 `json:"docHeight"`
	// Scope is the scope target's box, nil without one.
	Scope *Box `json:"-"`
	// Masks are the mask targets' boxes, in order.
	Masks []Box `json:"-"`
}

// boxOrMissing is a located box, or why a target has none.
type boxOrMissing struct {
	Box
	Missing string `json:"missing"`
	Reason  string `json:"reason"`
}

// Steady prepares p for a deterministic capture: animations, transitions
// and the caret off (a style that stays until the document goes: removed,
// the page re-rasters slightly differently), fonts loaded, two frames
// painted; it measures the viewport and locates the scope (may be nil)
// and the masks. A target that matches nothing is MM_TARGET_NOT_FOUND.
func Steady(ctx context.Context, p *rod.Page, refs *RefMap, scope *Target, masks []Target) (Frame, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return Frame{}, err
	}
	arg := map[string]any{"masks": []any{}}
	if scope != nil {
		if arg["scope"], err = locator(p, refs, *scope); err != nil {
			return Frame{}, err
		}
	}
	locs := make([]any, len(masks))
	for i, m := range masks {
		if locs[i], err = locator(p, refs, m); err != nil {
			return Frame{}, err
		}
	}
	arg["masks"] = locs
	var out struct {
		Frame
		Scope *boxOrMissing  `json:"scope"`
		Masks []boxOrMissing `json:"masks"`
	}
	if err := evalIn(p, main, jsVisual, idem, &out, "steady", arg); err != nil {
		return Frame{}, fmt.Errorf("steady the page: %w", err)
	}
	f := out.Frame
	if scope != nil {
		b, err := located(out.Scope, *scope, "scope")
		if err != nil {
			return Frame{}, err
		}
		f.Scope = &b
	}
	for i := range out.Masks {
		b, err := located(&out.Masks[i], masks[i], fmt.Sprintf("mask[%d]", i))
		if err != nil {
			return Frame{}, err
		}
		f.Masks = append(f.Masks, b)
	}
	return f, nil
}

// locator is the page-side locator of a target.
func locator(p *rod.Page, refs *RefMap, t Target) (map[string]any, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if t.A11yRef == "" {
		return map[string]any{"sel": t.cssSelector()}, nil
	}
	h, err := resolveRef(p, refs, t.A11yRef)
	return h.loc, err
}

// located is b's box, or the error of a target that has none.
func located(b *boxOrMissing, t Target, field string) (Box, error) {
	switch {
	case b == nil || b.Missing == "missing":
		return Box{}, sdk.Errorf(sdk.CodeTargetNotFound, "%s: no element matches %s", field, t).
			WithDetails(map[string]any{"field": field, "target": t.String()})
	case b.Missing == "badselector":
		return Box{}, sdk.Errorf(sdk.CodeInvalidInput, "%s: %q is not a valid CSS selector: %s", field, t.Selector, b.Reason).
			WithDetails(map[string]any{"field": field})
	case b.Missing != "":
		return Box{}, staleRef(t.A11yRef, b.Reason)
	}
	return b.Box, nil
}

// UnderElement is an element under a changed region.
type UnderElement struct {
	Role    string `json:"role"`
	Name    string `json:"name"`
	TestID  string `json:"testId,omitempty"`
	A11yRef string `json:"a11yRef,omitempty"`
}

// Under is what lies under one changed region.
type Under struct {
	TestIDs  []string       `json:"testIds"`
	Elements []UnderElement `json:"elements"`
}

// maxUnder bounds the testIds and the elements named per region.
const maxUnder = 5

// ElementsUnder names, for each box, the innermost visible elements it
// covers (or that cover most of it): their testIds, and their role and
// name with their ref when refs (the page's current refs) hold them.
func ElementsUnder(ctx context.Context, p *rod.Page, refs *RefMap, boxes []Box) ([]Under, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, err
	}
	var gen int64
	if refs != nil && refs.session == p.SessionID {
		gen = refs.gen
	}
	var out []Under
	if err := evalIn(p, main, jsVisual, idem, &out, "under", map[string]any{"rects": boxes, "gen": gen, "max": maxUnder}); err != nil {
		return nil, fmt.Errorf("elements under the changed regions: %w", err)
	}
	return out, nil
}
