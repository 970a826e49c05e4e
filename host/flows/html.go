package flows

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

//go:embed report.html.tmpl
var reportTemplate string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"seconds": func(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) },
	"percent": func(r float64) string { return fmt.Sprintf("%.3f%%", r*100) },
	"node": func(raw json.RawMessage) reportNode {
		var n reportNode
		_ = json.Unmarshal(raw, &n)
		return n
	},
	"add": func(a, b int) int { return a + b },
}).Parse(reportTemplate))

// reportNode is a structure diff's node as the report shows it.
type reportNode struct {
	Role   string   `json:"role"`
	Name   string   `json:"name"`
	States string   `json:"states"`
	Path   []string `json:"path"`
	At     int      `json:"at"`
	From   *struct {
		Name   string `json:"name"`
		States string `json:"states"`
	} `json:"from"`
}

// reportFlow is a flow's result with the links the page uses: files
// copied into the report's folder, or relative to it.
type reportFlow struct {
	Result
	ID          string
	Screenshot  template.URL
	Checks      []reportCheck
	Records     template.URL
	ResultJSON  template.URL
	SnapshotURL template.URL
	ConsoleURL  template.URL
}

type reportCheck struct {
	CheckOutcome
	Expected, Actual, Diff template.URL
}

// WriteHTML writes a static report of s to dir/index.html that opens from
// disk without a server: every flow with its status, attempts, steps and
// durations; for a failed one its error, screenshot, the visual checks'
// expected, actual and diff images (a toggle between them), the
// structure checks' nodes added, removed and changed, the console errors
// and links to its artifacts and step records. Images are copied into
// dir/files, so the folder can be moved or uploaded as it is.
func (s Summary) WriteHTML(dir string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		return "", err
	}
	n := 0
	keep := func(src string) template.URL {
		if src == "" {
			return ""
		}
		n++
		dst := filepath.Join(dir, "files", fmt.Sprintf("%d-%s", n, filepath.Base(src)))
		if err := copyFile(src, dst); err != nil {
			return ""
		}
		return link(dir, dst)
	}
	flows := make([]reportFlow, len(s.Flows))
	for i, r := range s.Flows {
		f := reportFlow{Result: r, ID: fmt.Sprintf("flow-%d", i+1)}
		if a := r.Artifacts; a != nil {
			f.Screenshot = keep(a.Screenshot)
			f.Records = link(dir, a.StepRecords)
			f.ResultJSON = link(dir, a.Steps)
			f.SnapshotURL = link(dir, a.Snapshot)
			f.ConsoleURL = link(dir, a.ConsoleErrors)
		}
		for _, c := range r.Checks {
			rc := reportCheck{CheckOutcome: c}
			if c.Kind == "visual" {
				rc.Expected, rc.Actual, rc.Diff = keep(c.BaselinePath), keep(c.ScreenshotPath), keep(c.DiffPath)
			}
			f.Checks = append(f.Checks, rc)
		}
		flows[i] = f
	}
	path := filepath.Join(dir, "index.html")
	out, err := os.Create(path)
	if err != nil {
		return "", err
	}
	err = reportTmpl.Execute(out, map[string]any{"S": s, "Flows": flows})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// link is target as a URL relative to dir (a file URL when it has no
// relative path), "" for none. It is built here from a path, so the
// template may trust it (a file: URL is not one it lets through).
func link(dir, target string) template.URL {
	if target == "" {
		return ""
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return ""
	}
	absDir, _ := filepath.Abs(dir)
	if rel, err := filepath.Rel(absDir, abs); err == nil && !filepath.IsAbs(rel) {
		return template.URL((&url.URL{Path: filepath.ToSlash(rel)}).String())
	}
	return template.URL((&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
}

// statusClass is a result's status as a CSS class.
func (f reportFlow) StatusClass() string { return strings.ToLower(f.Status) }
