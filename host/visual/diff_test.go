package visual

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"testing"
)

// canvas is a w x h image filled with c.
func canvas(w, h int, c color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(m, m.Rect, image.NewUniform(c), image.Point{}, draw.Src)
	return m
}

func fill(m *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(m, r, image.NewUniform(c), image.Point{}, draw.Src)
}

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
	blue  = color.RGBA{3, 125, 214, 255}
)

// screen is a white page with a blue "button" at (20,20)-(80,44).
func screen() *image.RGBA {
	m := canvas(100, 60, white)
	fill(m, image.Rect(20, 20, 80, 44), blue)
	return m
}

func TestDiffIdenticalIsZero(t *testing.T) {
	res, err := Diff(screen(), screen(), DefaultOptions())
	if err != nil || res.DiffPixels != 0 || res.Mask != nil || Regions(res) != nil {
		t.Fatalf("identical images: %+v, %v", res, err)
	}
}

func TestDiffOnePixelColourChange(t *testing.T) {
	a, b := screen(), screen()
	b.SetRGBA(50, 30, color.RGBA{200, 40, 40, 255})
	res, err := Diff(a, b, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.DiffPixels != 1 || !res.Mask[30*100+50] {
		t.Fatalf("diff pixels = %d, want the one changed pixel", res.DiffPixels)
	}
	regs := Regions(res)
	if len(regs) != 1 || regs[0] != (Rect{X: 50, Y: 30, Width: 1, Height: 1}) {
		t.Fatalf("regions = %+v, want the changed pixel's box", regs)
	}
	if r := res.Ratio(); r != 1.0/6000 {
		t.Fatalf("ratio = %v", r)
	}
}

func TestDiffThreshold(t *testing.T) {
	// One value step in the button's blue channel: below the default
	// threshold, counted with threshold 0.
	a, b := screen(), screen()
	fill(b, image.Rect(20, 20, 80, 44), color.RGBA{3, 125, 215, 255})
	res, _ := Diff(a, b, DefaultOptions())
	if res.DiffPixels != 0 {
		t.Fatalf("one step under the default threshold: %d pixels differ, want 0", res.DiffPixels)
	}
	res, _ = Diff(a, b, Options{Threshold: 0})
	if res.DiffPixels != 60*24 {
		t.Fatalf("threshold 0: %d pixels differ, want the whole button (%d)", res.DiffPixels, 60*24)
	}
	regs := Regions(res)
	if len(regs) != 1 || regs[0] != (Rect{X: 20, Y: 20, Width: 60, Height: 24}) {
		t.Fatalf("regions = %+v, want the button's box", regs)
	}
}

// edge draws a black block right of x=10 whose left column is an
// anti-aliased grey of the given value (the edge's sub-pixel position).
func edge(grey uint8) *image.RGBA {
	m := canvas(30, 20, white)
	fill(m, image.Rect(11, 0, 30, 20), black)
	fill(m, image.Rect(10, 0, 11, 20), color.RGBA{grey, grey, grey, 255})
	return m
}

func TestDiffIgnoresAntialiasingShift(t *testing.T) {
	a, b := edge(128), edge(90)
	res, err := Diff(a, b, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.DiffPixels != 0 || res.AAPixels != 20 {
		t.Fatalf("sub-pixel edge shift: %d differ, %d anti-aliased; want 0 and 20", res.DiffPixels, res.AAPixels)
	}
	res, _ = Diff(a, b, Options{Threshold: DefaultThreshold, IncludeAA: true})
	if res.DiffPixels != 20 {
		t.Fatalf("includeAA: %d differ, want the edge column (20)", res.DiffPixels)
	}
}

func TestDiffSizesDiffer(t *testing.T) {
	_, err := Diff(canvas(10, 10, white), canvas(10, 11, white), DefaultOptions())
	var se *ErrSize
	if !errors.As(err, &se) || se.A != image.Pt(10, 10) || se.B != image.Pt(10, 11) {
		t.Fatalf("err = %v, want an ErrSize naming both sizes", err)
	}
}

func TestRegionsMergeNearAndCap(t *testing.T) {
	a, b := canvas(400, 300, white), canvas(400, 300, white)
	// two changes 5 px apart: one region
	fill(b, image.Rect(10, 10, 20, 20), black)
	fill(b, image.Rect(25, 10, 35, 20), black)
	// a far one
	fill(b, image.Rect(300, 200, 310, 210), black)
	res, _ := Diff(a, b, DefaultOptions())
	regs := Regions(res)
	want := []Rect{{X: 10, Y: 10, Width: 25, Height: 10}, {X: 300, Y: 200, Width: 10, Height: 10}}
	if len(regs) != 2 || regs[0] != want[0] || regs[1] != want[1] {
		t.Fatalf("regions = %+v, want %+v", regs, want)
	}
	// a grid of scattered changes: capped
	c := canvas(400, 300, white)
	for y := 0; y < 300; y += 40 {
		for x := 0; x < 400; x += 40 {
			c.SetRGBA(x, y, black)
		}
	}
	res, _ = Diff(a, c, DefaultOptions())
	regs = Regions(res)
	if len(regs) == 0 || len(regs) > MaxRegions {
		t.Fatalf("%d regions, want 1..%d", len(regs), MaxRegions)
	}
	covered := 0
	for y := 0; y < 300; y += 40 {
		for x := 0; x < 400; x += 40 {
			for _, r := range regs {
				if x >= r.X && x < r.right() && y >= r.Y && y < r.bottom() {
					covered++
					break
				}
			}
		}
	}
	if covered != 80 {
		t.Fatalf("regions cover %d of the 80 changed pixels", covered)
	}
}

func TestPaintMasksBothImages(t *testing.T) {
	a, b := screen(), screen()
	fill(b, image.Rect(20, 20, 80, 44), black)
	box := []Rect{{X: 18, Y: 18, Width: 64, Height: 28}}
	Paint(a, box)
	Paint(b, box)
	if res, _ := Diff(a, b, DefaultOptions()); res.DiffPixels != 0 {
		t.Fatalf("masked change: %d pixels differ", res.DiffPixels)
	}
}

func TestDecodeEncodeRoundTrip(t *testing.T) {
	m := screen()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := Diff(m, back, Options{}); res.DiffPixels != 0 {
		t.Fatalf("round trip changed %d pixels", res.DiffPixels)
	}
	if _, err := Decode([]byte("not a png")); err == nil {
		t.Fatal("a corrupt PNG decoded")
	}
}
