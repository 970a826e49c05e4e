package e2e

import (
	"slices"
	"testing"
)

// presetOut is the part of mm_visual_check's answer about the mask
// preset, the capture and the tolerance.
type presetOut struct {
	visualOut
	MaskPreset  string `json:"maskPreset"`
	PresetMasks []struct {
		Kind, Text, TestID  string
		X, Y, Width, Height int
	} `json:"presetMasks"`
	Capture struct {
		Scroll   string `json:"scroll"`
		Scrolled []struct {
			What string
			X, Y float64
		} `json:"scrolled"`
		Frames int  `json:"frames"`
		Stable bool `json:"stable"`
	} `json:"capture"`
}

func presetCheck(t testing.TB, h *Host, args map[string]any) presetOut {
	t.Helper()
	var out presetOut
	must(t, h.Call("mm_visual_check", args)).Decode(t, &out)
	return out
}

func (p presetOut) kinds() []string {
	var k []string
	for _, m := range p.PresetMasks {
		if !slices.Contains(k, m.Kind) {
			k = append(k, m.Kind)
		}
	}
	return k
}

// TestVisualAcrossSessions: a home baseline made in one session matches
// with 0 px (default threshold) in a second session launched on other
// free ports (the network is named after the Anvil port in three places),
// the answer listing the wallet preset's masks; without the preset the
// port shows.
func TestVisualAcrossSessions(t *testing.T) {
	h, _ := walletHost(t)
	first := launchState(t, launch(t, h, map[string]any{}))
	made := presetCheck(t, h, map[string]any{"name": "home"})
	t.Logf("first session (%s): %s, masks %+v", *first.NetworkName, made.Status, made.PresetMasks)
	if made.Status != "baseline-created" || made.MaskPreset != "wallet" || !slices.Contains(made.kinds(), "network") {
		t.Fatalf("first session's check: %+v", made)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))

	second := launchState(t, launch(t, h, map[string]any{}))
	if *second.NetworkName == *first.NetworkName {
		t.Fatalf("both sessions on %s: the test needs other ports", *first.NetworkName)
	}
	// At the default threshold: another Chrome may raster the rounded
	// buttons' anti-aliased edges a few levels apart (1 run in 10 here, 14
	// px of at most 24 levels), which threshold 0 counts; the ports' text
	// that the masks hide differs far above it.
	again := presetCheck(t, h, map[string]any{"name": "home"})
	t.Logf("second session (%s): %s %d px, masks %+v", *second.NetworkName, again.Status, again.DiffPixels, again.PresetMasks)
	if again.Status != "match" || again.DiffPixels != 0 {
		t.Fatalf("home in another session: %+v", again)
	}
	networks := 0
	for _, m := range again.PresetMasks {
		if m.Kind == "network" {
			networks++
		}
	}
	if networks != 3 || !slices.Contains(again.kinds(), "address") || !slices.Contains(again.kinds(), "balance") {
		t.Fatalf("the masks applied: %+v, want the network's three places, the address and the balance", again.PresetMasks)
	}
	bare := presetCheck(t, h, map[string]any{"name": "home", "masks": "none"})
	if bare.Status != "changed" || bare.MaskPreset != "none" || len(bare.PresetMasks) != 0 {
		t.Fatalf("masks none in another session: %+v", bare)
	}
}

// TestVisualScrollAndTolerance: a page scrolled down is checked at the
// top (and put back), the answer saying what moved and that two equal
// frames were seen; maxDiffPixels and maxDiffRatio pass a change at or
// below them and fail one above.
func TestVisualScrollAndTolerance(t *testing.T) {
	h, ws := walletHost(t)
	launch(t, h, map[string]any{})
	page := pageAt(t, bareCDP(t, ws).NoDefaultDevice(), "chrome-extension://")
	page.MustEval(`() => { const d = document.createElement('div'); d.style.height = '2000px'; d.id = 'tall'; document.body.appendChild(d); }`)
	base := presetCheck(t, h, map[string]any{"name": "tall"})
	if base.Capture.Frames < 2 || !base.Capture.Stable || base.Capture.Scroll != "top" || len(base.Capture.Scrolled) != 0 {
		t.Fatalf("capture of a page at the top: %+v", base.Capture)
	}
	page.MustEval(`() => window.scrollTo(0, 29)`)
	top := presetCheck(t, h, map[string]any{"name": "tall", "threshold": 0})
	if top.Status != "match" || len(top.Capture.Scrolled) != 1 || top.Capture.Scrolled[0].What != "window" || top.Capture.Scrolled[0].Y != 29 {
		t.Fatalf("checked 29 px down: %+v %+v", top.visualOut, top.Capture)
	}
	if y := page.MustEval(`() => scrollY`).Int(); y != 29 {
		t.Fatalf("after the check the page is at %d, want 29 again", y)
	}
	if kept := presetCheck(t, h, map[string]any{"name": "tall", "scroll": "keep"}); kept.Status != "changed" {
		t.Fatalf("scroll keep, 29 px down: %+v", kept.visualOut)
	}
	page.MustEval(`() => window.scrollTo(0, 0)`)

	// one value step on the Send button: n pixels at threshold 0
	page.MustEval(`() => {
  const b = document.querySelector('[data-testid="eth-overview-send"]');
  const [r, g, bl] = getComputedStyle(b).backgroundColor.match(/\d+/g).map(Number);
  b.style.backgroundColor = 'rgb(' + r + ',' + g + ',' + (bl < 255 ? bl + 1 : bl - 1) + ')';
}`)
	step := presetCheck(t, h, map[string]any{"name": "tall", "threshold": 0})
	n := step.DiffPixels
	t.Logf("one step on Send: %d px (%.5f)", n, step.DiffRatio)
	if step.Status != "changed" || n < 10 {
		t.Fatalf("one step on Send: %+v", step.visualOut)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"maxDiffPixels": n}, "match"},
		{map[string]any{"maxDiffPixels": n + 50}, "match"},
		{map[string]any{"maxDiffPixels": n - 1}, "changed"},
		{map[string]any{"maxDiffRatio": step.DiffRatio * 1.01}, "match"},
		{map[string]any{"maxDiffRatio": step.DiffRatio * 0.9}, "changed"},
		{map[string]any{"maxDiffPixels": n + 50, "maxDiffRatio": step.DiffRatio * 0.9}, "changed"},
	} {
		c.args["name"], c.args["threshold"] = "tall", 0
		v := presetCheck(t, h, c.args)
		if v.Status != c.want || v.DiffPixels != n || v.DiffRatio != step.DiffRatio {
			t.Errorf("%v: %s, %d px (%.5f); want %s with the pixels and ratio given", c.args, v.Status, v.DiffPixels, v.DiffRatio, c.want)
		}
	}
}
