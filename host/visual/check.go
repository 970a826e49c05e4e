package visual

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Statuses of a check.
const (
	StatusCreated = "baseline-created"
	StatusUpdated = "baseline-updated"
	StatusMatch   = "match"
	StatusChanged = "changed"
)

// CheckInput is one comparison of a screenshot with its baseline.
type CheckInput struct {
	Key Key
	// Shot is the new screenshot (PNG).
	Shot []byte
	// Masks are boxes in image pixels painted over in both images.
	Masks []Rect
	// Options tune the diff.
	Options Options
	// Update writes the screenshot as the baseline instead of comparing.
	Update bool
	// Diff asks for the diff image even when the check matches.
	Diff bool
	// Tolerance is how many changed pixels still match.
	Tolerance Tolerance
}

// Tolerance bounds the changed pixels a check still answers match with:
// every limit above 0 must hold; with none, any changed pixel is a
// change.
type Tolerance struct {
	// MaxDiffPixels is the most changed pixels that match (0: no limit
	// of its own).
	MaxDiffPixels int `json:"maxDiffPixels"`
	// MaxDiffRatio is the largest share of changed pixels, 0..1, that
	// matches (0: no limit of its own).
	MaxDiffRatio float64 `json:"maxDiffRatio"`
}

// Allows is whether n changed pixels of total are within t.
func (t Tolerance) Allows(n, total int) bool {
	if n == 0 {
		return true
	}
	if t.MaxDiffPixels <= 0 && t.MaxDiffRatio <= 0 {
		return false
	}
	if t.MaxDiffPixels > 0 && n > t.MaxDiffPixels {
		return false
	}
	return t.MaxDiffRatio <= 0 || float64(n) <= t.MaxDiffRatio*float64(total)
}

// Outcome is what a check found.
type Outcome struct {
	Status         string
	Width, Height  int
	DiffPixels     int
	DiffRatio      float64
	Regions        []Rect
	BaselinePath   string
	ScreenshotPath string
	// DiffPath and DiffPNG are the diff image, when the check changed
	// (or CheckInput.Diff asked for it).
	DiffPath string
	DiffPNG  []byte
	// diff is the comparison, for ChangedIn.
	diff Result
}

// ChangedIn counts the changed pixels inside r (image pixels, clipped to
// the image) and answers the first of them in reading order (top row
// first, then leftmost); ok is false when none changed there.
func (o Outcome) ChangedIn(r Rect) (n int, x, y int, ok bool) {
	d := o.diff
	if d.Mask == nil {
		return 0, 0, 0, false
	}
	x0, y0 := max(r.X, 0), max(r.Y, 0)
	x1, y1 := min(r.right(), d.Width), min(r.bottom(), d.Height)
	for yy := y0; yy < y1; yy++ {
		row := d.Mask[yy*d.Width : (yy+1)*d.Width]
		for xx := x0; xx < x1; xx++ {
			if !row[xx] {
				continue
			}
			if n == 0 {
				x, y, ok = xx, yy, true
			}
			n++
		}
	}
	return n, x, y, ok
}

// Check compares in.Shot with its baseline, or writes the baseline when
// there is none or in.Update is set. The screenshot and the diff image
// are kept in Work for Approve. Errors: MM_BASELINE_INVALID (the baseline
// is not a PNG), MM_BASELINE_SIZE_MISMATCH (another size: approve or
// update), MM_SCREENSHOT_FAILED (the capture is not a PNG, a file cannot
// be written).
func (s Store) Check(in CheckInput) (Outcome, error) {
	shot, err := Decode(in.Shot)
	if err != nil {
		return Outcome{}, sdk.Errorf(sdk.CodeScreenshotFailed, "the capture: %w", err)
	}
	name := in.Key.Name
	out := Outcome{BaselinePath: filepath.Join(s.Dir, in.Key.File()), Width: shot.Rect.Dx(), Height: shot.Rect.Dy()}
	writeErr := func(err error) error {
		return sdk.Errorf(sdk.CodeScreenshotFailed, "check %q: %w", name, err)
	}
	old, err := readRegular(out.BaselinePath, "baseline")
	var refused *sdk.Error
	switch {
	case errors.As(err, &refused):
		return Outcome{}, refused
	case errors.Is(err, fs.ErrNotExist) || in.Update:
		out.Status = StatusCreated
		if err == nil {
			out.Status = StatusUpdated
		}
		if err := writeRegular(out.BaselinePath, in.Shot, "baseline", committed); err != nil {
			if errors.As(err, &refused) {
				return Outcome{}, refused
			}
			return Outcome{}, writeErr(err)
		}
		if out.ScreenshotPath, err = s.keepShot(name, out.BaselinePath, in.Shot); err != nil {
			return Outcome{}, writeErr(err)
		}
		return out, nil
	case err != nil:
		return Outcome{}, writeErr(err)
	}
	if out.ScreenshotPath, err = s.keepShot(name, out.BaselinePath, in.Shot); err != nil {
		return Outcome{}, writeErr(err)
	}
	invalid := func(err error) error {
		return sdk.Errorf(sdk.CodeBaselineInvalid, "baseline %s of check %q is not a PNG (%w): check again with update: true, or run mmcp visual approve %s", out.BaselinePath, name, err, name).
			WithDetails(map[string]any{"baselinePath": out.BaselinePath, "screenshotPath": out.ScreenshotPath})
	}
	// The size comes from the header: a small file can claim a huge
	// image, and decoding it first would allocate all of it.
	cfg, err := png.DecodeConfig(bytes.NewReader(old))
	if err != nil {
		return Outcome{}, invalid(err)
	}
	if cfg.Width != shot.Rect.Dx() || cfg.Height != shot.Rect.Dy() {
		return Outcome{}, sdk.Errorf(sdk.CodeBaselineSizeMismatch, "check %q: the baseline is %dx%d, the screenshot %dx%d; if the new size is right, check again with update: true or run mmcp visual approve %s",
			name, cfg.Width, cfg.Height, shot.Rect.Dx(), shot.Rect.Dy(), name).
			WithDetails(map[string]any{
				"baselinePath": out.BaselinePath, "screenshotPath": out.ScreenshotPath,
				"baselineSize":   fmt.Sprintf("%dx%d", cfg.Width, cfg.Height),
				"screenshotSize": fmt.Sprintf("%dx%d", shot.Rect.Dx(), shot.Rect.Dy()),
			})
	}
	base, err := Decode(old)
	if err != nil {
		return Outcome{}, invalid(err)
	}
	if len(in.Masks) > 0 {
		Paint(base, in.Masks)
		Paint(shot, in.Masks)
	}
	res, err := Diff(base, shot, in.Options)
	if err != nil {
		return Outcome{}, sdk.Errorf(sdk.CodeInternal, "diff: %w", err)
	}
	out.DiffPixels, out.DiffRatio, out.Regions, out.diff = res.DiffPixels, res.Ratio(), Regions(res), res
	out.Status = StatusMatch
	if !in.Tolerance.Allows(res.DiffPixels, res.Width*res.Height) {
		out.Status = StatusChanged
	}
	if res.DiffPixels > 0 || in.Diff {
		if out.DiffPNG, err = Encode(DiffImage(base, res)); err != nil {
			return Outcome{}, writeErr(err)
		}
		out.DiffPath = s.diffPath(name)
		if err := writeRegular(out.DiffPath, out.DiffPNG, "the diff image", private); err != nil {
			return Outcome{}, writeErr(err)
		}
	}
	return out, nil
}
