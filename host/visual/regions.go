package visual

// Rect is a box in image pixels.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (r Rect) right() int  { return r.X + r.Width }
func (r Rect) bottom() int { return r.Y + r.Height }
func (r Rect) area() int   { return r.Width * r.Height }

// union is the smallest box holding both.
func (r Rect) union(o Rect) Rect {
	x, y := min(r.X, o.X), min(r.Y, o.Y)
	return Rect{X: x, Y: y, Width: max(r.right(), o.right()) - x, Height: max(r.bottom(), o.bottom()) - y}
}

// near reports whether two boxes overlap or lie within gap pixels.
func (r Rect) near(o Rect, gap int) bool {
	return r.X <= o.right()+gap && o.X <= r.right()+gap && r.Y <= o.bottom()+gap && o.Y <= r.bottom()+gap
}

// Region extraction: the mask is cut into cells; cells holding a
// differing pixel are grouped with their neighbours, each group becomes
// the box of its differing pixels, and boxes closer than regionGap merge
// until at most MaxRegions remain.
const (
	cellSize = 8
	// regionGap merges changes this close (pixels): one changed button
	// is one region, not one per glyph.
	regionGap = 16
	// MaxRegions caps the regions of one diff.
	MaxRegions = 8
)

// Regions turns a diff's mask into at most MaxRegions boxes, largest
// first.
func Regions(r Result) []Rect {
	if r.Mask == nil {
		return nil
	}
	cw, ch := (r.Width+cellSize-1)/cellSize, (r.Height+cellSize-1)/cellSize
	// cells holds each changed cell's box of differing pixels.
	cells := make([]Rect, cw*ch)
	used := make([]bool, cw*ch)
	for y := 0; y < r.Height; y++ {
		row := r.Mask[y*r.Width : (y+1)*r.Width]
		for x, on := range row {
			if !on {
				continue
			}
			i := (y/cellSize)*cw + x/cellSize
			px := Rect{X: x, Y: y, Width: 1, Height: 1}
			if used[i] {
				cells[i] = cells[i].union(px)
			} else {
				cells[i], used[i] = px, true
			}
		}
	}
	// Group the changed cells within reach of each other; a scatter of
	// far-apart changes widens the reach until few groups remain.
	reach := (regionGap + cellSize - 1) / cellSize
	boxes := groups(cells, used, cw, ch, reach)
	for len(boxes) > 4*MaxRegions && reach < max(cw, ch) {
		reach *= 2
		boxes = groups(cells, used, cw, ch, reach)
	}
	return mergeBoxes(boxes, regionGap, MaxRegions)
}

// groups flood-fills the used cells, joining cells at most reach cells
// apart, and answers each group's box.
func groups(cells []Rect, used []bool, cw, ch, reach int) []Rect {
	seen := make([]bool, len(used))
	var boxes []Rect
	var stack []int
	for start := range used {
		if !used[start] || seen[start] {
			continue
		}
		box := cells[start]
		seen[start] = true
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cx, cy := i%cw, i/cw
			for ny := max(cy-reach, 0); ny <= min(cy+reach, ch-1); ny++ {
				for nx := max(cx-reach, 0); nx <= min(cx+reach, cw-1); nx++ {
					if j := ny*cw + nx; used[j] && !seen[j] {
						seen[j] = true
						box = box.union(cells[j])
						stack = append(stack, j)
					}
				}
			}
		}
		boxes = append(boxes, box)
	}
	return boxes
}

// mergeBoxes merges boxes that lie within gap of each other, then the
// pairs whose union grows least, until at most limit remain; largest first.
func mergeBoxes(boxes []Rect, gap, limit int) []Rect {
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(boxes) && !merged; i++ {
			for j := i + 1; j < len(boxes); j++ {
				if boxes[i].near(boxes[j], gap) {
					boxes[i] = boxes[i].union(boxes[j])
					boxes = append(boxes[:j], boxes[j+1:]...)
					merged = true
					break
				}
			}
		}
	}
	for len(boxes) > limit {
		bi, bj, best := 0, 1, -1
		for i := range boxes {
			for j := i + 1; j < len(boxes); j++ {
				grow := boxes[i].union(boxes[j]).area() - boxes[i].area() - boxes[j].area()
				if best < 0 || grow < best {
					bi, bj, best = i, j, grow
				}
			}
		}
		boxes[bi] = boxes[bi].union(boxes[bj])
		boxes = append(boxes[:bj], boxes[bj+1:]...)
	}
	sortByArea(boxes)
	return boxes
}

func sortByArea(b []Rect) {
	for i := 1; i < len(b); i++ {
		for j := i; j > 0 && b[j].area() > b[j-1].area(); j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
}
