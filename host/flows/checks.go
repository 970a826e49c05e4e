package flows

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Tools of the visual and structure expectations.
const (
	ToolVisualCheck    = "mm_visual_check"
	ToolStructureCheck = "mm_structure_check"
)

// CheckOutcome is the last answer of a visual or structure expectation:
// what the HTML report shows of it. The images are copied into the
// failed flow's artifact folder (checks/<name>.expected|actual|diff.png).
type CheckOutcome struct {
	Kind           string            `json:"kind"`
	Name           string            `json:"name"`
	Status         string            `json:"status"`
	DiffPixels     int               `json:"diffPixels,omitempty"`
	DiffRatio      float64           `json:"diffRatio,omitempty"`
	Regions        []json.RawMessage `json:"regions,omitempty"`
	BaselinePath   string            `json:"baselinePath,omitempty"`
	ScreenshotPath string            `json:"screenshotPath,omitempty"`
	DiffPath       string            `json:"diffPath,omitempty"`
	Added          []json.RawMessage `json:"added,omitempty"`
	Removed        []json.RawMessage `json:"removed,omitempty"`
	Changed        []json.RawMessage `json:"changed,omitempty"`
}

// passed is whether a check's status lets its expectation hold: a first
// run writes the baseline.
func (c CheckOutcome) passed() bool { return c.Status != "changed" }

// check calls tool with args and notes its outcome in the view.
func (v *view) check(ctx context.Context, kind, tool string, args map[string]any) error {
	var out CheckOutcome
	if err := v.load(ctx, tool, args, &out); err != nil {
		return err
	}
	out.Kind = kind
	v.outcomes = append(v.outcomes, out)
	if out.passed() {
		return nil
	}
	if kind == "visual" {
		return fmt.Errorf("changed: %d px (%.4f of the image) in %d regions%s; diff %s", out.DiffPixels, out.DiffRatio, len(out.Regions), regionNames(out.Regions), out.DiffPath)
	}
	return fmt.Errorf("changed: %d added, %d removed, %d changed%s", len(out.Added), len(out.Removed), len(out.Changed), nodeNames(out))
}

// regionNames names the testIds of the first region.
func regionNames(regions []json.RawMessage) string {
	if len(regions) == 0 {
		return ""
	}
	var r struct {
		TestIDs []string `json:"testIds"`
	}
	if json.Unmarshal(regions[0], &r) != nil || len(r.TestIDs) == 0 {
		return ""
	}
	return " (first: " + strings.Join(r.TestIDs, ", ") + ")"
}

// nodeNames names a few of the nodes that differ.
func nodeNames(o CheckOutcome) string {
	var parts []string
	add := func(prefix string, nodes []json.RawMessage) {
		for _, raw := range nodes {
			var n struct {
				Role, Name string
				From       *struct{ Name string }
			}
			if json.Unmarshal(raw, &n) != nil || len(parts) >= 4 {
				continue
			}
			s := fmt.Sprintf("%s %s %q", prefix, n.Role, n.Name)
			if n.From != nil && n.From.Name != n.Name {
				s = fmt.Sprintf("%s %s %q (was %q)", prefix, n.Role, n.Name, n.From.Name)
			}
			parts = append(parts, s)
		}
	}
	add("+", o.Added)
	add("-", o.Removed)
	add("~", o.Changed)
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

// keepCheckImages copies the images of the visual checks that did not
// pass into dir/checks (the next check of the same name overwrites the
// ones mmcp keeps), and points the outcomes at the copies.
func keepCheckImages(dir string, cs []CheckOutcome) []CheckOutcome {
	out := make([]CheckOutcome, len(cs))
	for i, c := range cs {
		out[i] = c
		if c.Kind != "visual" || c.passed() {
			continue
		}
		copyTo := func(src, suffix string) string {
			if src == "" {
				return ""
			}
			dst := filepath.Join(dir, "checks", c.Name+"."+suffix+".png")
			if err := copyFile(src, dst); err != nil {
				return src
			}
			return dst
		}
		out[i].BaselinePath = copyTo(c.BaselinePath, "expected")
		out[i].ScreenshotPath = copyTo(c.ScreenshotPath, "actual")
		out[i].DiffPath = copyTo(c.DiffPath, "diff")
	}
	return out
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
