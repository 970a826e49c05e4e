// Package visual compares screenshots: a pixelmatch-style perceptual diff
// (YIQ colour distance, anti-aliased pixels ignored), the changed regions
// as a few rectangles, and the baselines the checks compare against.
package visual

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"runtime"
	"sync"
)

// DefaultThreshold is the default colour distance threshold, 0..1 (as
// pixelmatch's): smaller is stricter.
const DefaultThreshold = 0.1

// maxYIQDelta is the largest possible YIQ distance (pixelmatch's 35215).
const maxYIQDelta = 35215.0

// Options tune one diff.
type Options struct {
	// Threshold is the colour distance, 0..1, above which a pixel
	// differs; 0 counts any change (see DefaultOptions).
	Threshold float64
	// IncludeAA counts anti-aliased pixels as different.
	IncludeAA bool
}

// DefaultOptions are pixelmatch's defaults: threshold 0.1, anti-aliasing
// ignored.
func DefaultOptions() Options { return Options{Threshold: DefaultThreshold} }

// Result is what a diff found.
type Result struct {
	// Width and Height are the images' size.
	Width, Height int
	// DiffPixels is how many pixels differ (anti-aliased ones excepted).
	DiffPixels int
	// AAPixels is how many differing pixels were taken as anti-aliasing.
	AAPixels int
	// Mask marks the differing pixels (row-major, Width*Height); nil when
	// none differ.
	Mask []bool
}

// Ratio is the share of differing pixels, 0..1.
func (r Result) Ratio() float64 {
	if r.Width*r.Height == 0 {
		return 0
	}
	return float64(r.DiffPixels) / float64(r.Width*r.Height)
}

// ErrSize is the error of two images of different sizes.
type ErrSize struct{ A, B image.Point }

func (e *ErrSize) Error() string {
	return fmt.Sprintf("images differ in size: %dx%d and %dx%d", e.A.X, e.A.Y, e.B.X, e.B.Y)
}

// Diff compares two images of the same size pixel by pixel. Identical rows
// are skipped with one byte comparison; a differing pixel is one whose YIQ
// distance exceeds the threshold and that is not anti-aliasing (a pixel
// between a darker and a lighter neighbour that each sit in a flat area of
// both images).
func Diff(a, b *image.RGBA, o Options) (Result, error) {
	sa, sb := a.Rect.Size(), b.Rect.Size()
	if sa != sb {
		return Result{}, &ErrSize{A: sa, B: sb}
	}
	w, h := sa.X, sa.Y
	res := Result{Width: w, Height: h}
	maxDelta := maxYIQDelta * o.Threshold * o.Threshold
	pa, pb := pixels(a), pixels(b)
	first := 0
	for first < h && bytes.Equal(pa.row(first), pb.row(first)) {
		first++
	}
	if first == h {
		return res, nil
	}
	res.Mask = make([]bool, w*h)
	// Row bands run in parallel; each writes its own rows of the mask.
	bands := min(runtime.GOMAXPROCS(0), maxBands, h-first)
	counts := make([][2]int, bands)
	var wg sync.WaitGroup
	for n := range bands {
		y0, y1 := first+(h-first)*n/bands, first+(h-first)*(n+1)/bands
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[n][0], counts[n][1] = diffRows(pa, pb, y0, y1, maxDelta, o.IncludeAA, res.Mask)
		}()
	}
	wg.Wait()
	for _, c := range counts {
		res.DiffPixels += c[0]
		res.AAPixels += c[1]
	}
	if res.DiffPixels == 0 {
		res.Mask = nil
	}
	return res, nil
}

// maxBands bounds the goroutines of one diff.
const maxBands = 4

// diffRows compares rows y0..y1-1, marks the differing pixels in mask and
// counts them and the anti-aliased ones.
func diffRows(pa, pb pix, y0, y1 int, maxDelta float64, includeAA bool, mask []bool) (diff, aa int) {
	for y := y0; y < y1; y++ {
		ra, rb := pa.row(y), pb.row(y)
		if bytes.Equal(ra, rb) {
			continue
		}
		for x := 0; x < pa.w; x++ {
			i := x * 4
			if binary.LittleEndian.Uint32(ra[i:]) == binary.LittleEndian.Uint32(rb[i:]) {
				continue
			}
			d := colorDelta(ra[i:i+4:i+4], rb[i:i+4:i+4], false)
			if d < 0 {
				d = -d
			}
			if d <= maxDelta {
				continue
			}
			if !includeAA && (antialiased(pa, pb, x, y) || antialiased(pb, pa, x, y)) {
				aa++
				continue
			}
			mask[y*pa.w+x] = true
			diff++
		}
	}
	return diff, aa
}

// pix is an image's pixels without the sub-image offset.
type pix struct {
	p      []uint8
	stride int
	w, h   int
}

func pixels(m *image.RGBA) pix {
	s := m.Rect.Size()
	return pix{p: m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], stride: m.Stride, w: s.X, h: s.Y}
}

func (p pix) row(y int) []uint8 { return p.p[y*p.stride : y*p.stride+p.w*4] }

func (p pix) at(x, y int) []uint8 {
	i := y*p.stride + x*4
	return p.p[i : i+4 : i+4]
}

// word is a pixel's four bytes as one number, for equality.
func (p pix) word(x, y int) uint32 {
	return binary.LittleEndian.Uint32(p.p[y*p.stride+x*4:])
}

// colorDelta is the YIQ distance of two RGBA pixels (pixelmatch,
// "Measuring perceived color difference using YIQ NTSC transmission color
// space in mobile applications", Kotsarenko and Ramos), negative when the
// first is lighter; yOnly answers the luma difference alone. Translucent
// pixels are blended with white.
func colorDelta(p1, p2 []uint8, yOnly bool) float64 {
	y1, i1, q1 := yiq(p1)
	y2, i2, q2 := yiq(p2)
	y := y1 - y2
	if yOnly {
		return y
	}
	i, q := i1-i2, q1-q2
	d := 0.5053*y*y + 0.299*i*i + 0.1957*q*q
	if y1 > y2 {
		return -d
	}
	return d
}

// yiq converts one pixel, with tables for opaque ones.
func yiq(p []uint8) (y, i, q float64) {
	if p[3] == 255 {
		r, g, b := &tables[p[0]], &tables[p[1]], &tables[p[2]]
		return r[0] + g[1] + b[2], r[3] - g[4] - b[5], r[6] - g[7] + b[8]
	}
	cr, cg, cb := blend(p)
	return rgb2y(cr, cg, cb), rgb2i(cr, cg, cb), rgb2q(cr, cg, cb)
}

// luma is yiq's y alone.
func luma(p []uint8) float64 {
	if p[3] == 255 {
		return tables[p[0]][0] + tables[p[1]][1] + tables[p[2]][2]
	}
	return rgb2y(blend(p))
}

// tables[v] are the YIQ coefficients times v: y of red, green, blue, then
// i's, then q's (as positive terms; yiq applies the signs).
var tables = func() (t [256][9]float64) {
	for v := range t {
		f := float64(v)
		t[v] = [9]float64{
			f * 0.29889531, f * 0.58662247, f * 0.11448223,
			f * 0.59597799, f * 0.27417610, f * 0.32180189,
			f * 0.21147017, f * 0.52261711, f * 0.31114694,
		}
	}
	return t
}()

func blend(p []uint8) (r, g, b float64) {
	r, g, b = float64(p[0]), float64(p[1]), float64(p[2])
	if a := p[3]; a < 255 {
		f := float64(a) / 255
		r, g, b = 255+(r-255)*f, 255+(g-255)*f, 255+(b-255)*f
	}
	return r, g, b
}

func rgb2y(r, g, b float64) float64 { return r*0.29889531 + g*0.58662247 + b*0.11448223 }
func rgb2i(r, g, b float64) float64 { return r*0.59597799 - g*0.27417610 - b*0.32180189 }
func rgb2q(r, g, b float64) float64 { return r*0.21147017 - g*0.52261711 + b*0.31114694 }

// antialiased reports whether pixel (x1, y1) of img is likely
// anti-aliasing (pixelmatch, after "Anti-aliased Pixel and Intensity Slope
// Detector", Vysniauskas 2009): it has at most two neighbours of its own
// colour, and both its darkest and its lightest neighbour sit among many
// pixels of their own colour in img or in other.
func antialiased(img, other pix, x1, y1 int) bool {
	x0, y0 := max(x1-1, 0), max(y1-1, 0)
	x2, y2 := min(x1+1, img.w-1), min(y1+1, img.h-1)
	zeroes := 0
	if x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 {
		zeroes = 1
	}
	var lo, hi float64
	var loX, loY, hiX, hiY int
	c := img.word(x1, y1)
	cy := -1.0 // the pixel's luma, once a neighbour differs
	for x := x0; x <= x2; x++ {
		for y := y0; y <= y2; y++ {
			if x == x1 && y == y1 {
				continue
			}
			var d float64
			if img.word(x, y) != c {
				if cy < 0 {
					cy = luma(img.at(x1, y1))
				}
				d = cy - luma(img.at(x, y))
			}
			switch {
			case d == 0:
				zeroes++
				if zeroes > 2 {
					return false
				}
			case d < lo:
				lo, loX, loY = d, x, y
			case d > hi:
				hi, hiX, hiY = d, x, y
			}
		}
	}
	if lo == 0 || hi == 0 {
		return false
	}
	return (manySiblings(img, loX, loY) && manySiblings(other, loX, loY)) ||
		(manySiblings(img, hiX, hiY) && manySiblings(other, hiX, hiY))
}

// manySiblings reports whether pixel (x1, y1) has more than two
// neighbours of exactly its colour (the image edge counts as one).
func manySiblings(img pix, x1, y1 int) bool {
	x0, y0 := max(x1-1, 0), max(y1-1, 0)
	x2, y2 := min(x1+1, img.w-1), min(y1+1, img.h-1)
	zeroes := 0
	if x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 {
		zeroes = 1
	}
	c := img.word(x1, y1)
	for x := x0; x <= x2; x++ {
		for y := y0; y <= y2; y++ {
			if x == x1 && y == y1 {
				continue
			}
			if img.word(x, y) == c {
				zeroes++
				if zeroes > 2 {
					return true
				}
			}
		}
	}
	return false
}
