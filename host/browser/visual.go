package browser

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// SteadyOptions are what a visual check captures: the viewport (default),
// the whole page, or one element; masks (and the preset's) are located
// too; the page is scrolled to the top unless KeepScroll.
type SteadyOptions struct {
	FullPage   bool
	Scope      *discovery.Target
	Masks      []discovery.Target
	Preset     *discovery.MaskPreset
	KeepScroll bool
}

// Bounds on the captures a steady capture takes until two in a row are
// the same.
const maxSteadyFrames = 5

// SteadyCapture is a capture for a visual check.
type SteadyCapture struct {
	// PNG is the screenshot.
	PNG []byte
	// Page is the page it was taken of.
	Page *rod.Page
	// Frame is the page's viewport and the located boxes.
	Frame discovery.Frame
	// Origin is the image's top-left corner in document coordinates.
	OriginX, OriginY float64
	// Browser is the browser's product and major version ("chrome131").
	Browser string
	// Frames is how many captures were taken; Stable is whether the last
	// two were the same (at most maxSteadyFrames are taken).
	Frames int
	Stable bool
}

// CaptureSteady takes a screenshot for a visual check: the page steadied
// first (discovery.Steady: no animation, transition or caret from then on,
// fonts loaded), captured at its device scale factor.
// Errors: MM_TARGET_NOT_FOUND (a scope or mask target matches nothing),
// MM_SCREENSHOT_FAILED.
func (s *Chrome) CaptureSteady(ctx context.Context, refs *discovery.RefMap, o SteadyOptions) (SteadyCapture, error) {
	page, err := s.activePage(ctx)
	if err != nil {
		return SteadyCapture{}, err
	}
	s.front(ctx, page)
	f, err := discovery.Steady(ctx, page, refs, discovery.SteadyArgs{Scope: o.Scope, Masks: o.Masks, Preset: o.Preset, KeepScroll: o.KeepScroll})
	if err != nil {
		var e *sdk.Error
		if errors.As(err, &e) {
			return SteadyCapture{}, err
		}
		return SteadyCapture{}, sdk.Errorf(sdk.CodeScreenshotFailed, "%w", err)
	}
	out := SteadyCapture{Page: page, Frame: f, OriginX: f.ScrollX, OriginY: f.ScrollY, Browser: s.browserMajor(ctx)}
	req := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, OptimizeForSpeed: true}
	var clip *discovery.Box
	switch {
	case f.Scope != nil:
		clip = f.Scope
	case o.FullPage:
		clip = &discovery.Box{Width: f.DocWidth, Height: f.DocHeight}
	}
	if clip != nil {
		// Whole CSS pixels, so that two captures of the same box have
		// the same size.
		x, y := math.Floor(clip.X), math.Floor(clip.Y)
		w, h := math.Ceil(clip.X+clip.Width)-x, math.Ceil(clip.Y+clip.Height)-y
		if w <= 0 || h <= 0 {
			return SteadyCapture{}, sdk.Errorf(sdk.CodeTargetNotFound, "the element to check has no size (%gx%g)", clip.Width, clip.Height)
		}
		req.Clip = &proto.PageViewport{X: x, Y: y, Width: w, Height: h, Scale: 1}
		inView := x >= f.ScrollX && y >= f.ScrollY && x+w <= f.ScrollX+f.Width && y+h <= f.ScrollY+f.Height
		req.CaptureBeyondViewport = !inView
		out.OriginX, out.OriginY = x, y
	}
	if len(f.Scrolled) > 0 {
		defer func() {
			if err := discovery.Unscroll(ctx, page); err != nil {
				s.log.Debug("visual check: scroll back", "error", err)
			}
		}()
	}
	// Two equal frames in a row: a page still settling (a late image, a
	// balance read) gives another capture.
	for out.Frames < maxSteadyFrames && !out.Stable {
		shot, err := req.Call(page.Context(ctx))
		if err != nil {
			return SteadyCapture{}, sdk.Errorf(sdk.CodeScreenshotFailed, "capture: %w", err)
		}
		out.Frames++
		out.Stable = out.PNG != nil && bytes.Equal(out.PNG, shot.Data)
		out.PNG = shot.Data
	}
	return out, nil
}

// browserMajor is the browser's product and major version, as baselines
// are named: "chrome131", "chromium131", "headlesschrome131".
func (s *Chrome) browserMajor(ctx context.Context) string {
	v, err := proto.BrowserGetVersion{}.Call(s.browser.Context(ctx))
	if err != nil {
		return "chrome"
	}
	product, version, _ := strings.Cut(v.Product, "/")
	major, _, _ := strings.Cut(version, ".")
	return strings.ToLower(product) + major
}
