package visual

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
)

// Decode reads a PNG into RGBA bytes, not premultiplied (as pixelmatch
// reads a canvas): an opaque screenshot's pixels are the same either way.
func Decode(b []byte) (*image.RGBA, error) {
	m, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode PNG: %w", err)
	}
	switch m := m.(type) {
	case *image.RGBA:
		return m, nil
	case *image.NRGBA:
		return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}, nil
	}
	out := image.NewRGBA(image.Rect(0, 0, m.Bounds().Dx(), m.Bounds().Dy()))
	draw.Draw(out, out.Rect, m, m.Bounds().Min, draw.Src)
	return out, nil
}

// Encode writes an image as PNG, fast rather than small.
func Encode(m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MaskColor paints masked boxes (as Playwright's mask does).
var MaskColor = color.RGBA{R: 255, G: 0, B: 255, A: 255}

// Paint fills the boxes (clipped to the image) with MaskColor.
func Paint(m *image.RGBA, boxes []Rect) {
	for _, r := range boxes {
		rr := image.Rect(r.X, r.Y, r.right(), r.bottom()).Add(m.Rect.Min).Intersect(m.Rect)
		draw.Draw(m, rr, image.NewUniform(MaskColor), image.Point{}, draw.Src)
	}
}

// DiffImage draws a diff as pixelmatch does: the base image faded to light
// grey, the differing pixels red.
func DiffImage(base *image.RGBA, r Result) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Width, r.Height))
	src := pixels(base)
	for y := 0; y < r.Height; y++ {
		in, o := src.row(y), out.Pix[y*out.Stride:y*out.Stride+r.Width*4]
		for x := 0; x < r.Width; x++ {
			i := x * 4
			if r.Mask != nil && r.Mask[y*r.Width+x] {
				o[i], o[i+1], o[i+2], o[i+3] = 255, 0, 0, 255
				continue
			}
			cr, cg, cb := blend(in[i : i+4 : i+4])
			v := uint8(255 + (rgb2y(cr, cg, cb)-255)*0.1)
			o[i], o[i+1], o[i+2], o[i+3] = v, v, v, 255
		}
	}
	return out
}
