package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// ScreenshotOptions are mm_screenshot's inputs.
type ScreenshotOptions struct {
	// Name is the file name without extension; it may not contain a path.
	Name string
	// FullPage captures the whole scrollable page, not just the viewport.
	FullPage bool
	// Selector, when set, captures only the first element it matches.
	Selector string
	// IncludeBase64 returns the PNG bytes in the result as well.
	IncludeBase64 bool
}

// ScreenshotResult is mm_screenshot's result.
type ScreenshotResult struct {
	Path   string `json:"path"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Base64 string `json:"base64,omitempty"`
}

// Check implements tools.Checker: the name must be usable.
func (o ScreenshotOptions) Check() error {
	if o.Name == "" {
		return nil
	}
	_, err := ScreenshotName(o.Name)
	return err
}

// maxNameLen bounds screenshot file names.
const maxNameLen = 100

// ScreenshotName validates and sanitizes a screenshot name: path
// separators and ".." are refused (MM_INVALID_INPUT), other characters
// outside [A-Za-z0-9._-] become "-", and a ".png" suffix is dropped.
func ScreenshotName(name string) (string, error) {
	if strings.ContainsAny(name, `/\`+"\x00") || strings.Contains(name, "..") {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "screenshot name %q must be a plain file name, without a path", name)
	}
	name = strings.TrimSuffix(strings.TrimSpace(name), ".png")
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), ".")
	if out == "" {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "screenshot name %q has no usable characters", name)
	}
	if len(out) > maxNameLen {
		out = out[:maxNameLen]
	}
	return out, nil
}

// rectJS returns the page-coordinates box of the first element matching a
// selector, or null.
const rectJS = `((sel) => {
  const el = document.querySelector(sel);
  if (!el) return null;
  el.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = el.getBoundingClientRect();
  return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height};
})`

// Screenshot captures the active page as PNG into Options.ScreenshotPath
// of its sanitized name. Errors: MM_INVALID_INPUT (bad
// name), MM_TARGET_NOT_FOUND (selector matched nothing),
// MM_SCREENSHOT_FAILED.
func (s *Chrome) Screenshot(ctx context.Context, o ScreenshotOptions) (ScreenshotResult, error) {
	name, err := ScreenshotName(o.Name)
	if err != nil {
		return ScreenshotResult{}, err
	}
	page, err := s.activePage(ctx)
	if err != nil {
		return ScreenshotResult{}, err
	}
	s.front(ctx, page)
	req := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, OptimizeForSpeed: true}
	switch {
	case o.Selector != "":
		var box *proto.PageViewport
		if err := discovery.Eval(ctx, page, rectJS+"("+discovery.JSArg(o.Selector)+")", discovery.EvalOptions{Idempotent: true}, &box); err != nil {
			return ScreenshotResult{}, sdk.Errorf(sdk.CodeScreenshotFailed, "locate %q: %w", o.Selector, err)
		}
		if box == nil || box.Width <= 0 || box.Height <= 0 {
			return ScreenshotResult{}, sdk.Errorf(sdk.CodeTargetNotFound, "no visible element matches selector %q", o.Selector)
		}
		box.Scale = 1
		req.Clip = box
		req.CaptureBeyondViewport = true
	case o.FullPage:
		m, err := proto.PageGetLayoutMetrics{}.Call(page.Context(ctx))
		if err != nil {
			return ScreenshotResult{}, sdk.Errorf(sdk.CodeScreenshotFailed, "page size: %w", err)
		}
		if cs := m.CSSContentSize; cs != nil && cs.Width > 0 && cs.Height > 0 {
			req.Clip = &proto.PageViewport{Width: cs.Width, Height: cs.Height, Scale: 1}
			req.CaptureBeyondViewport = true
		}
	}
	shot, err := req.Call(page.Context(ctx))
	if err != nil {
		return ScreenshotResult{}, sdk.Errorf(sdk.CodeScreenshotFailed, "capture: %w", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot.Data))
	if err != nil {
		return ScreenshotResult{}, sdk.Errorf(sdk.CodeScreenshotFailed, "decode capture: %w", err)
	}
	path := s.opts.ScreenshotPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return ScreenshotResult{}, sdk.Errorf(sdk.CodeScreenshotFailed, "create %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, shot.Data, 0o600); err != nil {
		return ScreenshotResult{}, sdk.Errorf(sdk.CodeScreenshotFailed, "write %s: %w", path, err)
	}
	res := ScreenshotResult{Path: path, Width: cfg.Width, Height: cfg.Height}
	if o.IncludeBase64 {
		res.Base64 = base64.StdEncoding.EncodeToString(shot.Data)
	}
	return res, nil
}

// front brings page's tab to the front before a capture where that
// matters: a headed background tab does not paint. Headless tabs paint
// anyway: no round trip (an attached Chrome may be headed: always).
func (s *Chrome) front(ctx context.Context, page *rod.Page) {
	if s.headed || s.launcher == nil {
		_ = proto.TargetActivateTarget{TargetID: page.TargetID}.Call(s.browser.Context(ctx))
	}
}
