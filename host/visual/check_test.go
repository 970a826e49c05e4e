package visual

import (
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

func pngOf(t *testing.T, m *image.RGBA) []byte {
	t.Helper()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckLifecycle(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "baselines"), Work: filepath.Join(dir, "work")}
	key := Key{Name: "home", Browser: "chrome131", Platform: "linux", Width: 100, Height: 60, Scale: 1}
	if got := key.File(); got != "home--chrome131-linux-100x60@1x.png" {
		t.Fatalf("file = %q", got)
	}
	check := func(m *image.RGBA, masks []Rect, update bool) Outcome {
		t.Helper()
		out, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, m), Masks: masks, Options: DefaultOptions(), Update: update})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := check(screen(), nil, false); out.Status != StatusCreated || out.BaselinePath != filepath.Join(st.Dir, key.File()) {
		t.Fatalf("first check: %+v", out)
	}
	if out := check(screen(), nil, false); out.Status != StatusMatch || out.DiffPixels != 0 || out.DiffPath != "" {
		t.Fatalf("same screen: %+v", out)
	}
	changed := screen()
	fill(changed, image.Rect(20, 20, 80, 44), color.RGBA{214, 60, 3, 255})
	out := check(changed, nil, false)
	if out.Status != StatusChanged || out.DiffPixels != 60*24 || len(out.Regions) != 1 || out.Regions[0] != (Rect{X: 20, Y: 20, Width: 60, Height: 24}) {
		t.Fatalf("changed button: %+v", out)
	}
	if _, err := os.Stat(out.DiffPath); err != nil {
		t.Fatalf("diff image: %v", err)
	}
	if out := check(changed, []Rect{{X: 20, Y: 20, Width: 60, Height: 24}}, false); out.Status != StatusMatch {
		t.Fatalf("masked change: %+v", out)
	}
	// approve promotes the last screenshot
	if _, err := st.Approve("home"); err != nil {
		t.Fatal(err)
	}
	if out := check(changed, nil, false); out.Status != StatusMatch {
		t.Fatalf("after approve: %+v", out)
	}
	if out := check(screen(), nil, true); out.Status != StatusUpdated {
		t.Fatalf("update: %+v", out)
	}
}

func TestCheckBadBaselines(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: dir, Work: filepath.Join(dir, "work")}
	key := Key{Name: "x", Browser: "chrome1", Platform: "linux", Width: 10, Height: 10, Scale: 1}
	code := func(err error) string {
		var e *sdk.Error
		if !errors.As(err, &e) {
			t.Fatalf("err = %v, want an *sdk.Error", err)
		}
		return e.Code
	}
	if err := os.WriteFile(filepath.Join(dir, key.File()), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions()})
	if code(err) != sdk.CodeBaselineInvalid {
		t.Fatalf("corrupt baseline: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, key.File()), pngOf(t, canvas(10, 10, white)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions()})
	if code(err) != sdk.CodeBaselineSizeMismatch {
		t.Fatalf("other size: %v", err)
	}
	if _, err := st.Approve("never-run"); code(err) != sdk.CodeInvalidInput {
		t.Fatalf("approve without a result: %v", err)
	}
	for _, bad := range []string{"../x", "a/b", "", ".hidden", "a..b", "with space"} {
		if code(ValidName(bad)) != sdk.CodeInvalidInput {
			t.Fatalf("name %q accepted", bad)
		}
	}
	if err := ValidName("wallet.home_v2-dark"); err != nil {
		t.Fatal(err)
	}
}

// The last screenshot, its diff image and result are artifacts: private
// to the user (0600 in a 0700 folder, an older 0755 folder included), as
// every other artifact; baselines are workspace files (0644).
func TestCheckArtifactModes(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "baselines"), Work: filepath.Join(dir, "work")}
	if err := os.MkdirAll(st.Work, 0o755); err != nil {
		t.Fatal(err)
	}
	key := Key{Name: "home", Browser: "chrome131", Platform: "linux", Width: 100, Height: 60, Scale: 1}
	for _, m := range []*image.RGBA{screen(), canvas(100, 60, white)} {
		if _, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, m), Options: DefaultOptions()}); err != nil {
			t.Fatal(err)
		}
	}
	mode := func(p string) os.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if m := mode(st.Work); m != 0o700 {
		t.Errorf("%s: %o, want 700", st.Work, m)
	}
	for _, f := range []string{"home.png", "home.diff.png", "home.last.json"} {
		if m := mode(filepath.Join(st.Work, f)); m != 0o600 {
			t.Errorf("%s: %o, want 600", f, m)
		}
	}
	if m := mode(filepath.Join(st.Dir, key.File())); m != 0o644 {
		t.Errorf("baseline: %o, want 644", m)
	}
}

// A change within the tolerance matches: every limit above 0 must hold;
// with none, any changed pixel is a change.
func TestToleranceAllows(t *testing.T) {
	for _, c := range []struct {
		tol  Tolerance
		n    int
		want bool
	}{
		{Tolerance{}, 0, true},
		{Tolerance{}, 1, false},
		{Tolerance{MaxDiffPixels: 10}, 10, true},
		{Tolerance{MaxDiffPixels: 10}, 11, false},
		{Tolerance{MaxDiffRatio: 0.01}, 10, true},
		{Tolerance{MaxDiffRatio: 0.01}, 11, false},
		{Tolerance{MaxDiffPixels: 100, MaxDiffRatio: 0.01}, 11, false},
		{Tolerance{MaxDiffPixels: 5, MaxDiffRatio: 0.5}, 6, false},
	} {
		if got := c.tol.Allows(c.n, 1000); got != c.want {
			t.Errorf("%+v allows %d of 1000: %v, want %v", c.tol, c.n, got, c.want)
		}
	}
}
