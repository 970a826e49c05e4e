package flows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report copies a failed flow's images next to itself and links its
// artifacts relative to itself; names and errors are escaped.
func TestWriteHTML(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "out", "broken")
	img := func(name string) string {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("png "+name), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	changed, _ := json.Marshal(map[string]any{"role": "button", "name": "Send now", "path": []string{"heading:Account 1"}, "at": 3, "from": map[string]any{"name": "Send"}})
	s := Summarize([]Result{
		{Name: "home holds", Status: StatusPassed, Steps: []StepResult{{Tool: "mm_get_state", OK: true, DurationMs: 7}}},
		{Name: "<broken>", Status: StatusFailed, Error: "expectations not met: visual home: changed",
			Steps:     []StepResult{{Tool: "mm_navigate", OK: true, DurationMs: 40}},
			Artifacts: &Artifacts{Screenshot: img("shot.png"), Steps: img("result.json"), Console: []string{"boom <b>"}},
			Checks: []CheckOutcome{
				{Kind: "visual", Name: "home", Status: "changed", DiffPixels: 120, BaselinePath: img("checks/home.expected.png"), ScreenshotPath: img("checks/home.actual.png"), DiffPath: img("checks/home.diff.png")},
				{Kind: "structure", Name: "home", Status: "changed", Changed: []json.RawMessage{changed}},
			}},
	}, Shard{Index: 1, Count: 1}, 0)
	path, err := s.WriteHTML(filepath.Join(dir, "report"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	page := string(b)
	for _, want := range []string{`&lt;broken&gt;`, `boom &lt;b&gt;`, `src="files/2-home.expected.png"`, `src="files/4-home.diff.png"`,
		`href="../out/broken/result.json"`, `Send → Send now`, `heading:Account 1`, `<code>mm_navigate</code>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	if strings.Contains(page, "<broken>") || strings.Contains(page, "ZgotmplZ") {
		t.Error("the report holds an unescaped name or a refused URL")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report", "files", "4-home.diff.png")); string(got) != "png checks/home.diff.png" {
		t.Errorf("the diff image copied: %q", got)
	}
}
