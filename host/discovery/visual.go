package discovery

import (
	"context"
	"fmt"
	"math"
	"sort"

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
// mask targets and of the preset's masks.
type Frame struct {
	Width     float64 `json:"width"`
	Height    float64 `json:"height"`
	DPR       float64 `json:"dpr"`
	ScrollX   float64 `json:"scrollX"`
	ScrollY   float64 `json:"scrollY"`
	DocWidth  float64 `json:"docWidth"`
	DocHeight float64 `json:"docHeight"`
	// Scrolled are the scroll positions Steady moved to the top, to put
	// back with Unscroll after the capture.
	Scrolled []Scrolled `json:"scrolled"`
	// Scope is the scope target's box, nil without one.
	Scope *Box `json:"-"`
	// Masks are the mask targets' boxes, in order.
	Masks []Box `json:"-"`
	// Preset are the boxes the mask preset found.
	Preset []PresetMask `json:"preset"`
}

// Scrolled is one scroll position Steady moved: the window's, or an
// element's (named as the page describes it).
type Scrolled struct {
	What string  `json:"what"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
}

// PresetMask is a box the mask preset covers: what it is (network,
// address, balance, fiat, time, date, identicon), the text found and the
// testid around it.
type PresetMask struct {
	Kind   string `json:"kind"`
	Box    Box    `json:"box"`
	Text   string `json:"text,omitempty"`
	TestID string `json:"testId,omitempty"`
}

// boxOrMissing is a located box, or why a target has none.
type boxOrMissing struct {
	Box
	Missing string `json:"missing"`
	Reason  string `json:"reason"`
}

// SteadyArgs are what Steady locates and how it places the page.
type SteadyArgs struct {
	// Scope is the element to capture; nil for the viewport or page.
	Scope *Target
	// Masks are the targets painted over.
	Masks []Target
	// Preset is the mask preset to locate, nil for none.
	Preset *MaskPreset
	// KeepScroll leaves the page where it is scrolled; otherwise the
	// window and every scrolled element go to the top for the capture.
	KeepScroll bool
}

// Steady prepares p for a deterministic capture: animations, transitions
// and the caret off (a style that stays until the document goes: removed,
// the page re-rasters slightly differently), fonts loaded, two frames
// painted, the window and scrolled elements at the top (unless
// a.KeepScroll; Frame.Scrolled says what moved); it measures the viewport
// and locates the scope (may be nil), the masks and the preset's masks. A
// target that matches nothing is MM_TARGET_NOT_FOUND.
func Steady(ctx context.Context, p *rod.Page, refs *RefMap, a SteadyArgs) (Frame, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return Frame{}, err
	}
	scope, masks := a.Scope, a.Masks
	arg := map[string]any{"masks": []any{}, "preset": a.Preset, "top": !a.KeepScroll}
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

// Unscroll puts back the scroll positions Steady moved to the top.
func Unscroll(ctx context.Context, p *rod.Page) error {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return err
	}
	return evalIn(p, main, jsVisual, idem, nil, "unscroll", map[string]any{})
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

// Changed answers how many changed pixels lie inside a box (document
// coordinates) and where the first of them is in reading order (top row
// first, then leftmost); ok is false when none do.
type Changed func(Box) (n int, x, y float64, ok bool)

// Bounds on the elements named per region, and on the elements a region
// is asked about.
const (
	maxUnder      = 5
	maxCandidates = 400
)

// candidate is an element the page found overlapping a region.
type candidate struct {
	UnderElement
	Box    Box `json:"box"`
	Parent int `json:"parent"`
}

// ElementsUnder names, for each box (a changed region), the elements
// whose own box holds its changed pixels (changed tells which): the
// innermost ones (an element holding a changed element is left out), the
// first in reading order first. An edit pushes what follows it, so the
// edited element comes before the neighbours it moved. Each comes with
// its role (generic for a testid on an element of no kept role), name,
// testId, and ref when refs (the page's current refs) hold it; testIds
// lists the innermost testid elements among them, in the same order.
func ElementsUnder(ctx context.Context, p *rod.Page, refs *RefMap, boxes []Box, changed Changed) ([]Under, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, err
	}
	var gen int64
	if refs != nil && refs.session == p.SessionID {
		gen = refs.gen
	}
	var found [][]candidate
	if err := evalIn(p, main, jsVisual, idem, &found, "under", map[string]any{"rects": boxes, "gen": gen, "limit": maxCandidates}); err != nil {
		return nil, fmt.Errorf("elements under the changed regions: %w", err)
	}
	out := make([]Under, len(boxes))
	for i := range out {
		var cands []candidate
		if i < len(found) {
			cands = found[i]
		}
		out[i] = rankUnder(cands, boxes[i], changed)
	}
	return out, nil
}

// held is a candidate holding changed pixels: where the first one is.
type held struct {
	i    int
	x, y float64
}

// rankUnder picks and orders the candidates of region r (see
// ElementsUnder).
func rankUnder(cands []candidate, r Box, changed Changed) Under {
	u := Under{TestIDs: []string{}, Elements: []UnderElement{}}
	var holders []held
	holds := make([]bool, len(cands))
	for i, c := range cands {
		b, ok := intersect(c.Box, r)
		if !ok {
			continue
		}
		if n, x, y, ok := changed(b); ok && n > 0 {
			holders = append(holders, held{i, x, y})
			holds[i] = true
		}
	}
	// innermost: no holder below it (of any kind, or holding a testid)
	below, testIDBelow := make([]bool, len(cands)), make([]bool, len(cands))
	for _, h := range holders {
		tid := cands[h.i].TestID != ""
		for p := cands[h.i].Parent; p >= 0 && p < len(cands); p = cands[p].Parent {
			below[p] = true
			if tid {
				testIDBelow[p] = true
			}
		}
	}
	sort.SliceStable(holders, func(a, b int) bool {
		ba, bb := cands[holders[a].i].Box, cands[holders[b].i].Box
		if sameLine(ba, bb) {
			return holders[a].x < holders[b].x
		}
		return ba.Y < bb.Y
	})
	for _, h := range holders {
		c := cands[h.i]
		if !below[h.i] && len(u.Elements) < maxUnder {
			u.Elements = append(u.Elements, c.UnderElement)
		}
		if c.TestID != "" && !testIDBelow[h.i] && len(u.TestIDs) < maxUnder {
			u.TestIDs = append(u.TestIDs, c.TestID)
		}
	}
	return u
}

// sameLine is whether two boxes share a line: they overlap vertically by
// at least half the lower one's height.
func sameLine(a, b Box) bool {
	o := math.Min(a.Y+a.Height, b.Y+b.Height) - math.Max(a.Y, b.Y)
	return o > 0 && o >= math.Min(a.Height, b.Height)/2
}

// intersect is the part of a inside r.
func intersect(a, r Box) (Box, bool) {
	x0, y0 := math.Max(a.X, r.X), math.Max(a.Y, r.Y)
	x1, y1 := math.Min(a.X+a.Width, r.X+r.Width), math.Min(a.Y+a.Height, r.Y+r.Height)
	if x1 <= x0 || y1 <= y0 {
		return Box{}, false
	}
	return Box{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}, true
}
