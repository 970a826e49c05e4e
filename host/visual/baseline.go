package visual

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultBaselineDir is where baselines live, relative to the workspace;
// without a workspace they live in <artifacts>/visual-baselines.
const DefaultBaselineDir = settings.DefaultBaselineDir

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
// home--chrome156-linux-1280x720@1x.png.
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

// StoreIn is the store of baselines in dir whose last results go to
// <artifactsDir>/visual.
func StoreIn(dir, artifactsDir string) Store {
	return Store{Dir: dir, Work: filepath.Join(artifactsDir, "visual")}
}

// last is <Work>/<name>.last.json: which baseline the check compared
// with, by file name in the baseline folder. The screenshot approve
// promotes is always <Work>/<name>.png; no path is read from this file
// (a checkout can ship it).
type last struct {
	Baseline string `json:"baseline"`
}

func (s Store) lastPath(name string) string { return filepath.Join(s.Work, name+".last.json") }

func (s Store) shotPath(name string) string { return filepath.Join(s.Work, name+".png") }

// keepShot writes the check's screenshot to Work, notes its baseline's
// file name for Approve and removes an older diff image.
func (s Store) keepShot(name, baseline string, shot []byte) (string, error) {
	path := s.shotPath(name)
	if err := writeRegular(path, shot, "the kept screenshot", private); err != nil {
		return "", err
	}
	_ = os.Remove(s.diffPath(name))
	b, _ := json.Marshal(last{Baseline: filepath.Base(baseline)})
	return path, writeRegular(s.lastPath(name), b, "the check result", private)
}

func (s Store) diffPath(name string) string { return filepath.Join(s.Work, name+".diff.png") }

// Approve promotes the last screenshot of check name (<Work>/<name>.png,
// a regular file holding a PNG) to its baseline in Dir and answers the
// baseline's path. Without a last result it is MM_INVALID_INPUT; a
// baseline or screenshot that is a link is MM_BASELINE_INVALID.
func (s Store) Approve(name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	again := func(format string, a ...any) error {
		return sdk.Errorf(sdk.CodeInvalidInput, format+"; run mm_visual_check %s again", append(a, name)...)
	}
	b, err := readRegular(s.lastPath(name), "the check result")
	if errors.Is(err, fs.ErrNotExist) {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "no result of check %q in %s: run mm_visual_check first", name, s.Work)
	}
	if err != nil {
		return "", err
	}
	var l last
	if err := json.Unmarshal(b, &l); err != nil || !baselineFile(name, l.Baseline) {
		return "", again("%s is not a result of check %q written by mmcp", s.lastPath(name), name)
	}
	shot, err := readRegular(s.shotPath(name), "the kept screenshot")
	if errors.Is(err, fs.ErrNotExist) {
		return "", again("the last screenshot of %q is gone", name)
	}
	if err != nil {
		return "", err
	}
	if _, err := png.DecodeConfig(bytes.NewReader(shot)); err != nil {
		return "", again("the last screenshot of %q (%s) is not a PNG", name, s.shotPath(name))
	}
	path := filepath.Join(s.Dir, l.Baseline)
	return path, writeRegular(path, shot, "baseline", committed)
}

// baselineFile is whether file is a baseline file name of check name:
// <name>--<...>.png, no path.
func baselineFile(name, file string) bool {
	return file == filepath.Base(file) && strings.HasPrefix(file, name+"--") && strings.HasSuffix(file, ".png") &&
		!strings.ContainsAny(file, `/\`) && file != "." && file != ".."
}
