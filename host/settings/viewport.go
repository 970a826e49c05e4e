package settings

import (
	"fmt"
	"strconv"
	"strings"
)

// Viewport is the size of a page's viewport in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Bounds of a viewport given on the command line.
const (
	minViewport = 200
	maxViewport = 7680
)

// String renders the viewport as WxH.
func (v Viewport) String() string { return fmt.Sprintf("%dx%d", v.Width, v.Height) }

// Set parses WxH (1280x720), so a Viewport is a flag.Value.
func (v *Viewport) Set(s string) error {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	wi, werr := strconv.Atoi(w)
	hi, herr := strconv.Atoi(h)
	if !ok || werr != nil || herr != nil {
		return fmt.Errorf("viewport %q: want WIDTHxHEIGHT, like %s", s, DefaultViewport)
	}
	if wi < minViewport || hi < minViewport || wi > maxViewport || hi > maxViewport {
		return fmt.Errorf("viewport %q: width and height must be between %d and %d", s, minViewport, maxViewport)
	}
	*v = Viewport{Width: wi, Height: hi}
	return nil
}
