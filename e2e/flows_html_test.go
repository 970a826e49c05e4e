package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

// TestFlowHTMLReport: flows with visual and structure expectations under
// `mmcp test`: a home baseline made in one run (one session) holds in the
// next run's session on other ports; a flow whose screen is not home
// fails its visual expectation. `--html` writes a report that a headless
// Chromium opens from disk: it shows the failing flow, its steps and its
// diff image (loaded), toggles to the expected image, with no console
// error; `mmcp report` writes the same from the JSON summary.
func TestFlowHTMLReport(t *testing.T) {
	ws := walletWorkspace(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home := write("home.yaml", "name: home holds\nsteps:\n  - tool: mm_get_state\nexpect:\n  visual: [{name: home}]\n  structure: [{name: home}]\n")
	arts := filepath.Join(t.TempDir(), "artifacts")
	if r := mmcpRun(t, nil, "--repo", ws, "--headless", "--artifacts-dir", arts, "test", home); r.Code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}
	write("settings.yaml", "name: settings is not home\nsteps:\n  - tool: mm_navigate\n    args: {screen: settings}\nexpect:\n  timeoutMs: 500\n  visual: [{name: home}]\n")
	js, html := filepath.Join(t.TempDir(), "summary.json"), filepath.Join(t.TempDir(), "report")
	r := mmcpRun(t, nil, "--repo", ws, "--headless", "--artifacts-dir", arts, "test", "--parallel", "1", "--json", js, "--html", html, dir)
	t.Logf("second run: exit %d\n%s", r.Code, r.Stdout)
	s := readSummary(t, js)
	if r.Code != 1 || s.Passed != 1 || s.Failed != 1 || !strings.Contains(r.Stdout, "HTML report: "+filepath.Join(html, "index.html")) {
		t.Fatalf("second run: exit %d, %+v\n%s", r.Code, s, tail(r.Stderr, 20))
	}
	for _, f := range s.Flows {
		if f.Name == "settings is not home" && !strings.Contains(f.Error, "visual home: changed") {
			t.Errorf("the failing flow's error: %s", f.Error)
		}
	}

	bin, ok := launcher.LookPath()
	if !ok {
		t.Fatal("no Chromium to open the report")
	}
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).Leakless(true).Set("allow-file-access-from-files")
	t.Cleanup(l.Kill)
	br := rod.New().ControlURL(l.MustLaunch()).MustConnect()
	t.Cleanup(func() { _ = br.Close() })
	check := func(index string) {
		t.Helper()
		page := br.MustPage("")
		var problems []string
		wait := page.EachEvent(func(e *proto.RuntimeConsoleAPICalled) {
			if e.Type == proto.RuntimeConsoleAPICalledTypeError {
				problems = append(problems, "console error")
			}
		}, func(e *proto.RuntimeExceptionThrown) {
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		}, func(e *proto.LogEntryAdded) {
			if e.Entry.Level == proto.LogLogEntryLevelError {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		})
		go wait()
		_ = proto.LogEnable{}.Call(page)
		page.MustNavigate("file://" + index).MustWaitLoad()
		failed := page.Timeout(10 * time.Second).MustElement(`details.flow.failed`)
		if name := failed.MustElement(".name").MustText(); name != "settings is not home" {
			t.Errorf("the failed flow shown: %q", name)
		}
		if rows := len(failed.MustElements("table.steps tr")); rows != 2 {
			t.Errorf("the failed flow's steps table has %d rows, want a header and its step", rows)
		}
		diff := failed.MustElement(".visual img.diff")
		if w := diff.MustEval(`() => this.complete && this.naturalWidth`).Int(); w != 1280 {
			t.Errorf("the diff image did not load (naturalWidth %d)", w)
		}
		failed.MustElement(`.visual button[data-view=expected]`).MustClick()
		if vis := failed.MustElement(".visual img.expected").MustEval(`() => !this.hidden && this.naturalWidth`).Int(); vis != 1280 {
			t.Errorf("the expected image after the toggle: %d", vis)
		}
		if page.MustHas(`details.flow.passed`) == false {
			t.Errorf("the passing flow is not listed")
		}
		if len(problems) > 0 {
			t.Errorf("%s: %v", index, problems)
		}
	}
	check(filepath.Join(html, "index.html"))

	// mmcp report over the JSON summary
	again := filepath.Join(t.TempDir(), "again")
	if r := mmcpRun(t, nil, "report", "--html", again, js); r.Code != 1 || !strings.Contains(r.Stdout, "HTML report:") {
		t.Fatalf("mmcp report: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	check(filepath.Join(again, "index.html"))
}
