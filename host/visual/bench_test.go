package visual

import (
	"image"
	"image/color"
	"math/rand"
	"sort"
	"testing"
	"time"
)

// page draws a 1280x720 screen-like image: white, a header bar, buttons,
// and rows of "text" (random greys, as glyphs with anti-aliasing).
func page(seed int64, textShift int) *image.RGBA {
	r := rand.New(rand.NewSource(seed))
	m := canvas(1280, 720, white)
	fill(m, image.Rect(0, 0, 1280, 64), color.RGBA{36, 39, 42, 255})
	for i := 0; i < 6; i++ {
		fill(m, image.Rect(40+i*200, 600, 200+i*200, 648), blue)
	}
	for line := 0; line < 20; line++ {
		y := 100 + line*24
		for x := 40; x < 900; x++ {
			for dy := 0; dy < 14; dy++ {
				if r.Intn(3) == 0 {
					g := uint8(r.Intn(256))
					m.SetRGBA(x+textShift, y+dy, color.RGBA{g, g, g, 255})
				}
			}
		}
	}
	return m
}

// benchDiff times Diff plus Regions of a and b and reports the median.
func benchDiff(b *testing.B, a, c *image.RGBA) {
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := Diff(a, c, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		Regions(res)
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkDiff1280x720 diffs two 1280x720 screens: identical, one button
// recoloured, the text block redrawn (another screen), and every pixel
// changed (the worst case).
func BenchmarkDiff1280x720(b *testing.B) {
	base := page(1, 0)
	button := page(1, 0)
	fill(button, image.Rect(240, 600, 400, 648), color.RGBA{214, 60, 3, 255})
	inverted := page(1, 0)
	for i := range inverted.Pix {
		if i%4 != 3 {
			inverted.Pix[i] = 255 - inverted.Pix[i]
		}
	}
	b.Run("identical", func(b *testing.B) { benchDiff(b, base, page(1, 0)) })
	b.Run("button", func(b *testing.B) { benchDiff(b, base, button) })
	b.Run("other-screen", func(b *testing.B) { benchDiff(b, base, page(2, 0)) })
	b.Run("all-changed", func(b *testing.B) { benchDiff(b, base, inverted) })
}
