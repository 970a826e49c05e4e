package visual

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultBaselineDir is where baselines live, relative to the workspace;
// without a workspace they live in <artifacts>/visual-baselines.
const DefaultBaselineDir = "test/visual-baselines"

// namePattern is what a check name may be: it names files.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)

// maxNameLen bounds a check name.
const maxNameLen = 100

// ValidName refuses a check name that is not a plain, safe file name
// (MM_INVALID_INPUT).
func ValidName(name string) error {
	if len(name) > maxNameLen || !namePattern.MatchString(name) {
		return sdk.Errorf(sdk.CodeInvalidInput, "check name %q: use letters, digits, '-', '_' and '.' only (a file name, at most %d characters, no path)", name, maxNameLen).
			WithDetails(map[string]any{"field": "name"})
	}
	return nil
}

// Key is what names a baseline: the check's name and what changes the
// rendering (browser and its major version, platform, viewport, device
// scale factor).
type Key struct {
	Name     string
	Browser  string
	Platform string
	Width    int
	Height   int
	Scale    float64
}

// File is the baseline's file name:
// <name>--<browser>-<platform>-<width>x<height>@<scale>x.png, e.g.
// home--headlesschrome131-linux-1280x720@1x.png.
func (k Key) File() string {
	return fmt.Sprintf("%s--%s-%s-%dx%d@%sx.png", k.Name, k.Browser, k.Platform, k.Width, k.Height,
		strconv.FormatFloat(k.Scale, 'f', -1, 64))
}

// Store holds the baselines (Dir) and the last result of each check
// (Work: the screenshot, the diff image, and last.json for approve).
type Store struct {
	Dir  string
	Work string
}

// last is <Work>/<name>.last.json: what approve promotes.
type last struct {
	Screenshot string `json:"screenshot"`
	Baseline   string `json:"baseline"`
}

func (s Store) lastPath(name string) string { return filepath.Join(s.Work, name+".last.json") }

// keepShot writes the check's screenshot to Work, notes it for Approve
// and removes an older diff image.
func (s Store) keepShot(name, baseline string, shot []byte) (string, error) {
	if err := os.MkdirAll(s.Work, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(s.Work, name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		return "", err
	}
	_ = os.Remove(s.diffPath(name))
	b, _ := json.Marshal(last{Screenshot: path, Baseline: baseline})
	return path, os.WriteFile(s.lastPath(name), b, 0o644)
}

func (s Store) diffPath(name string) string { return filepath.Join(s.Work, name+".diff.png") }

// Approve promotes the last screenshot of check name to its baseline and
// answers the baseline's path. Without a last result it is
// MM_INVALID_INPUT.
func (s Store) Approve(name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	b, err := os.ReadFile(s.lastPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "no result of check %q in %s: run mm_visual_check first", name, s.Work)
	}
	if err != nil {
		return "", err
	}
	var l last
	if err := json.Unmarshal(b, &l); err != nil || l.Screenshot == "" || l.Baseline == "" {
		return "", fmt.Errorf("%s is not a check result: run mm_visual_check again", s.lastPath(name))
	}
	shot, err := os.ReadFile(l.Screenshot)
	if err != nil {
		return "", fmt.Errorf("the last screenshot of %q: %w; run mm_visual_check again", name, err)
	}
	return l.Baseline, writeFile(l.Baseline, shot)
}

// writeFile writes b to path, creating its directory.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
