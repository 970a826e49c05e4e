package session

import (
	"cmp"
	"context"
	"encoding/base64"
	"math"
	"runtime"
	"slices"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/visual"
	"github.com/mmcp-dev/mmcp/sdk"
)

// VisualInput is mm_visual_check's input; the embedded target is the
// element scope.
type VisualInput struct {
	discovery.Target
	Name         string             `json:"name"`
	Scope        string             `json:"scope"`
	Mask         []discovery.Target `json:"mask"`
	Threshold    float64            `json:"threshold"`
	Update       bool               `json:"update"`
	IncludeImage bool               `json:"includeImage"`
	// Masks is the mask preset: "wallet" (the default) or "none".
	Masks string `json:"masks"`
	// Scroll is where the page is for the capture: "top" (the default)
	// or "keep".
	Scroll        string  `json:"scroll"`
	MaxDiffPixels int     `json:"maxDiffPixels"`
	MaxDiffRatio  float64 `json:"maxDiffRatio"`
}

// VisualMask is a box the mask preset covered, in image pixels.
type VisualMask struct {
	visual.Rect
	Kind   string `json:"kind"`
	Text   string `json:"text,omitempty"`
	TestID string `json:"testId,omitempty"`
}

// VisualCapture says how the capture was taken: where the page was
// scrolled from (put back afterwards), and how many captures it took to
// see two equal frames in a row.
type VisualCapture struct {
	Scroll   string               `json:"scroll"`
	Scrolled []discovery.Scrolled `json:"scrolled"`
	Frames   int                  `json:"frames"`
	Stable   bool                 `json:"stable"`
}

// VisualRegion is one changed region and what lies under it.
type VisualRegion struct {
	visual.Rect
	discovery.Under
}

// VisualResult is mm_visual_check's answer; its record keeps the kept
// screenshot and labels (RecordScreenshot, RecordLabels), never the
// images.
type VisualResult struct {
	Name           string         `json:"name"`
	Status         string         `json:"status"`
	DiffPixels     int            `json:"diffPixels"`
	DiffRatio      float64        `json:"diffRatio"`
	Regions        []VisualRegion `json:"regions"`
	Width          int            `json:"width"`
	Height         int            `json:"height"`
	Scale          float64        `json:"scale"`
	BaselinePath   string         `json:"baselinePath"`
	ScreenshotPath string         `json:"screenshotPath"`
	DiffPath       string         `json:"diffPath,omitempty"`
	// MaskPreset and PresetMasks are the preset and the boxes it masked.
	MaskPreset  string           `json:"maskPreset"`
	PresetMasks []VisualMask     `json:"presetMasks"`
	Tolerance   visual.Tolerance `json:"tolerance"`
	Capture     VisualCapture    `json:"capture"`

	diffPNG []byte // returned as an image when asked for
}

// RecordScreenshot implements tools.Screenshotted: the record's
// artifacts keep the screenshot the check kept, never the images.
func (r VisualResult) RecordScreenshot() *tools.ScreenshotRef {
	if r.Status == "" {
		return nil // no check made
	}
	return &tools.ScreenshotRef{Path: r.ScreenshotPath, Width: r.Width, Height: r.Height}
}

// RecordLabels implements tools.Labeled: "visual:<status>:<name>" lets
// mm_knowledge_search find the checks that changed ("visual:changed"),
// and "visual-region:<testId>" the testIds under the changed regions.
func (r VisualResult) RecordLabels() []string {
	if r.Status == "" {
		return nil
	}
	out := []string{"visual:" + r.Status + ":" + r.Name}
	seen := map[string]bool{}
	for _, g := range r.Regions {
		for _, id := range g.TestIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, "visual-region:"+id)
			}
		}
	}
	return out
}

// ResultImages implements tools.Imaged: the diff image, when asked for.
func (r VisualResult) ResultImages() []tools.Image {
	if r.diffPNG == nil {
		return nil
	}
	return []tools.Image{{MIMEType: "image/png", Base64: base64.StdEncoding.EncodeToString(r.diffPNG)}}
}

// VisualCheck is mm_visual_check: a steady capture of the active page (or
// its full page, or an element), compared with the baseline of in.Name
// (package visual), the changed regions named by what lies under them.
func (m *Manager) VisualCheck(ctx context.Context, in VisualInput) (VisualResult, error) {
	if err := visual.ValidName(in.Name); err != nil {
		return VisualResult{}, err
	}
	s, err := m.Page(ctx)
	if err != nil {
		return VisualResult{}, err
	}
	opts := browser.SteadyOptions{FullPage: in.Scope == "fullPage", Masks: in.Mask, KeepScroll: in.Scroll == "keep"}
	if in.Masks != "none" {
		opts.Preset = &discovery.WalletPreset
	}
	if in.A11yRef != "" || in.TestID != "" || in.Selector != "" {
		if opts.FullPage {
			return VisualResult{}, sdk.Errorf(sdk.CodeInvalidInput, "scope fullPage and an element (a11yRef, testId or selector) exclude each other: give one").
				WithDetails(map[string]any{"field": "scope"})
		}
		t := in.Target
		opts.Scope = &t
	}
	shot, err := s.wallet.CaptureSteady(ctx, s.Refs(), opts)
	if err != nil {
		return VisualResult{}, err
	}
	f := shot.Frame
	scale := f.DPR
	if scale <= 0 {
		scale = 1
	}
	key := visual.Key{Name: in.Name, Browser: shot.Browser, Platform: runtime.GOOS,
		Width: int(f.Width), Height: int(f.Height), Scale: scale}
	masks := make([]visual.Rect, len(f.Masks), len(f.Masks)+len(f.Preset))
	for i, b := range f.Masks {
		masks[i] = toImage(b, shot.OriginX, shot.OriginY, scale)
	}
	preset := []VisualMask{}
	for _, m := range f.Preset {
		r := toImage(m.Box, shot.OriginX, shot.OriginY, scale)
		if r.X+r.Width <= 0 || r.Y+r.Height <= 0 {
			continue // above or left of the capture
		}
		masks = append(masks, r)
		preset = append(preset, VisualMask{Rect: r, Kind: m.Kind, Text: m.Text, TestID: m.TestID})
	}
	tol := visual.Tolerance{MaxDiffPixels: in.MaxDiffPixels, MaxDiffRatio: in.MaxDiffRatio}
	out, err := m.cfg.Visual.Check(visual.CheckInput{
		Key: key, Shot: shot.PNG, Masks: masks, Update: in.Update, Diff: in.IncludeImage,
		Options: visual.Options{Threshold: in.Threshold}, Tolerance: tol,
	})
	if err != nil {
		return VisualResult{}, err
	}
	res := VisualResult{Name: in.Name, Status: out.Status, DiffPixels: out.DiffPixels, DiffRatio: out.DiffRatio,
		Regions: []VisualRegion{}, Width: out.Width, Height: out.Height, Scale: scale,
		BaselinePath: out.BaselinePath, ScreenshotPath: out.ScreenshotPath, DiffPath: out.DiffPath,
		MaskPreset: cmp.Or(in.Masks, discovery.WalletPreset.Name), PresetMasks: preset, Tolerance: tol,
		Capture: VisualCapture{Scroll: cmp.Or(in.Scroll, "top"), Scrolled: f.Scrolled, Frames: shot.Frames, Stable: shot.Stable}}
	// only the preset's boxes inside the capture were applied
	res.PresetMasks = slices.DeleteFunc(res.PresetMasks, func(m VisualMask) bool { return m.X >= out.Width || m.Y >= out.Height })
	if res.Capture.Scrolled == nil {
		res.Capture.Scrolled = []discovery.Scrolled{}
	}
	if in.IncludeImage {
		res.diffPNG = out.DiffPNG
	}
	if len(out.Regions) > 0 {
		boxes := make([]discovery.Box, len(out.Regions))
		for i, r := range out.Regions {
			boxes[i] = discovery.Box{X: shot.OriginX + float64(r.X)/scale, Y: shot.OriginY + float64(r.Y)/scale,
				Width: float64(r.Width) / scale, Height: float64(r.Height) / scale}
		}
		// changed counts the changed pixels of a box in document
		// coordinates, and gives the first one back in them.
		changed := func(b discovery.Box) (int, float64, float64, bool) {
			n, x, y, ok := out.ChangedIn(insideImage(b, shot.OriginX, shot.OriginY, scale))
			return n, shot.OriginX + float64(x)/scale, shot.OriginY + float64(y)/scale, ok
		}
		under, err := discovery.ElementsUnder(ctx, shot.Page, s.Refs(), boxes, changed)
		if err != nil {
			m.log.Debug("visual check: elements under the regions", "error", err)
		}
		for i, r := range out.Regions {
			vr := VisualRegion{Rect: r, Under: discovery.Under{TestIDs: []string{}, Elements: []discovery.UnderElement{}}}
			if i < len(under) {
				vr.Under = under[i]
			}
			res.Regions = append(res.Regions, vr)
		}
	}
	return res, nil
}

// toImage turns a box in document coordinates into image pixels of a
// capture whose top-left corner is (ox, oy), rounded outwards.
func toImage(b discovery.Box, ox, oy, scale float64) visual.Rect {
	x0, y0 := math.Floor((b.X-ox)*scale), math.Floor((b.Y-oy)*scale)
	x1, y1 := math.Ceil((b.X+b.Width-ox)*scale), math.Ceil((b.Y+b.Height-oy)*scale)
	return visual.Rect{X: int(x0), Y: int(y0), Width: int(x1 - x0), Height: int(y1 - y0)}
}

// insideImage is toImage rounded inwards: the whole image pixels inside
// the box, so that a neighbour's changed pixels on the shared edge do not
// count as the box's own.
func insideImage(b discovery.Box, ox, oy, scale float64) visual.Rect {
	x0, y0 := math.Ceil((b.X-ox)*scale), math.Ceil((b.Y-oy)*scale)
	x1, y1 := math.Floor((b.X+b.Width-ox)*scale), math.Floor((b.Y+b.Height-oy)*scale)
	return visual.Rect{X: int(x0), Y: int(y0), Width: int(max(x1-x0, 0)), Height: int(max(y1-y0, 0))}
}
