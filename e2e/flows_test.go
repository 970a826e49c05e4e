package e2e

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/deploy"
)

// flowDappServer is dappServer (connect, send, counter) plus /broken, a
// page that logs console errors and shows nothing a flow expects.
func flowDappServer(t testing.TB) *httptest.Server {
	t.Helper()
	base := dappServer(t)
	u, _ := url.Parse(base.URL)
	mux := http.NewServeMux()
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>broken</title></head><body><h1>Broken</h1>
<script>
console.error('flow-broken: the page failed to load its data');
setInterval(() => console.error('flow-broken: still failing'), 300);
</script></body></html>`)
	})
	mux.Handle("/", httputil.NewSingleHostReverseProxy(u))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// flowSuiteDir is the 8-flow suite on the test wallet.
func flowSuiteDir() string { return filepath.Join(repoRoot(), "e2e", "testdata", "flows") }

// mmcpRun runs bin/mmcp with args and the extra environment.
func mmcpRun(t testing.TB, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "mmcp"), args...)
	cmd.Env = append(os.Environ(), env...)
	return runCmd(t, cmd)
}

// cmdLimit bounds a command a test runs (the 8-flow suite takes about a
// minute here).
const cmdLimit = 8 * time.Minute

// runCmd runs cmd and returns its output and exit code; a command that
// cannot run at all fails the test, as does one still running after
// cmdLimit: it gets SIGQUIT (a Go program prints its goroutines) and the
// test shows the end of its stderr, instead of the suite's timeout
// leaving it running.
func runCmd(t testing.TB, cmd *exec.Cmd) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(cmdLimit):
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		t.Fatalf("%v still ran after %s; its stderr ends:\n%s", cmd.Args, cmdLimit, tail(errb.String(), 300))
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return cliResult{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// flowSummary is the part of `mmcp test --json` the tests read.
type flowSummary struct {
	Shard                        string
	Total, Passed, Failed, Flaky int
	Flows                        []struct {
		Name, Path, Status, Error string
		Artifacts                 *struct {
			Screenshot, Snapshot, ConsoleErrors, Steps, StepRecords string
		}
	}
}

func readSummary(t testing.TB, path string) flowSummary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s flowSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// junitReport is JUnit XML as CI consumers read it (the Jenkins/Ant
// shape: testsuites > testsuite > testcase, failure with message and
// type), decoded strictly: an element or attribute outside this shape
// fails the test.
type junitReport struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     float64  `xml:"time,attr"`
	Suites   []struct {
		Name      string  `xml:"name,attr"`
		Tests     int     `xml:"tests,attr"`
		Failures  int     `xml:"failures,attr"`
		Errors    int     `xml:"errors,attr"`
		Skipped   int     `xml:"skipped,attr"`
		Time      float64 `xml:"time,attr"`
		Timestamp string  `xml:"timestamp,attr"`
		Cases     []struct {
			Name       string  `xml:"name,attr"`
			Classname  string  `xml:"classname,attr"`
			Time       float64 `xml:"time,attr"`
			Properties struct {
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"property"`
			} `xml:"properties"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
			Rest      []struct {
				XMLName xml.Name
			} `xml:",any"`
			RestAttrs []xml.Attr `xml:",any,attr"`
		} `xml:"testcase"`
		Rest      []struct{ XMLName xml.Name } `xml:",any"`
		RestAttrs []xml.Attr                   `xml:",any,attr"`
	} `xml:"testsuite"`
	Rest      []struct{ XMLName xml.Name } `xml:",any"`
	RestAttrs []xml.Attr                   `xml:",any,attr"`
}

// readJUnit decodes a JUnit file and fails on anything outside the shape.
func readJUnit(t testing.TB, path string) junitReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var j junitReport
	if err := d.Decode(&j); err != nil {
		t.Fatalf("%s is not JUnit XML: %v", path, err)
	}
	if len(j.Rest)+len(j.RestAttrs) > 0 {
		t.Fatalf("unexpected elements in testsuites: %v %v", j.Rest, j.RestAttrs)
	}
	for _, s := range j.Suites {
		if len(s.Rest)+len(s.RestAttrs) > 0 {
			t.Fatalf("unexpected elements in testsuite: %v %v", s.Rest, s.RestAttrs)
		}
		for _, c := range s.Cases {
			if len(c.Rest)+len(c.RestAttrs) > 0 {
				t.Fatalf("unexpected elements in testcase %s: %v %v", c.Name, c.Rest, c.RestAttrs)
			}
		}
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); err != nil || !ok || strings.TrimSpace(string(cd)) != "" {
			t.Fatalf("%s: content after the root element: %v %v", path, tok, err)
		}
	}
	return j
}

const brokenFlow = "broken dapp page (expected to fail)"

// TestFlowSuite: `mmcp test --parallel 4` runs the 8 flows of the suite on
// the test wallet (dapp connect and send among them), each in a session
// of its own; the one expected to fail fails with its screenshot, last
// snapshot and console errors; the JUnit report parses strictly with one
// testcase per flow; the exit code is 1. The same suite as the Kubernetes
// Job's shard commands (--shard 1/3, 2/3, 3/3), run as three processes,
// runs every flow exactly once, and merge-reports joins them.
func TestFlowSuite(t *testing.T) {
	ws := walletWorkspace(t)
	srv := flowDappServer(t)
	env := []string{"FLOW_DAPP_URL=" + srv.URL}
	out := t.TempDir()
	junit, js := filepath.Join(out, "junit.xml"), filepath.Join(out, "summary.json")
	r := mmcpRun(t, env, "--repo", ws, "--headless", "test", "--parallel", "4", "--junit", junit, "--json", js, flowSuiteDir())
	t.Logf("mmcp test:\n%s", r.Stdout)
	if r.Code != 1 {
		t.Fatalf("exit code %d, want 1\nstderr:\n%s", r.Code, tail(r.Stderr, 30))
	}
	if n := strings.Count(r.Stdout, "\nPASSED ") + strings.Count(r.Stdout, "\nFAILED ") + strings.Count(r.Stdout, "\nFLAKY "); n != 8 {
		t.Errorf("%d progress lines, want 8", n)
	}
	s := readSummary(t, js)
	if s.Total != 8 || s.Failed != 1 || s.Passed+s.Flaky != 7 {
		t.Fatalf("summary: %d passed, %d failed, %d flaky of %d: %+v", s.Passed, s.Failed, s.Flaky, s.Total, s.Flows)
	}
	for _, f := range s.Flows {
		if f.Name != brokenFlow {
			continue
		}
		if f.Status != "failed" || !strings.Contains(f.Error, "never-there") || f.Artifacts == nil {
			t.Fatalf("the broken flow: %+v", f)
		}
		a := f.Artifacts
		for what, p := range map[string]string{"screenshot": a.Screenshot, "snapshot": a.Snapshot, "console errors": a.ConsoleErrors, "step records": a.StepRecords} {
			if st, err := os.Stat(p); err != nil || (!st.IsDir() && st.Size() == 0) {
				t.Errorf("%s %q: %v", what, p, err)
			}
		}
		if b, _ := os.ReadFile(a.ConsoleErrors); !strings.Contains(string(b), "flow-broken") {
			t.Errorf("console errors: %q", b)
		}
		if b, _ := os.ReadFile(a.Snapshot); !strings.Contains(string(b), "Broken") {
			t.Errorf("snapshot: %.300s", b)
		}
	}
	j := readJUnit(t, junit)
	if j.Tests != 8 || j.Failures != 1 || len(j.Suites) != 1 || len(j.Suites[0].Cases) != 8 {
		t.Fatalf("junit: %d tests, %d failures, %d suites", j.Tests, j.Failures, len(j.Suites))
	}
	for _, c := range j.Suites[0].Cases {
		if (c.Failure != nil) != (c.Name == brokenFlow) {
			t.Errorf("testcase %q failure %+v", c.Name, c.Failure)
		}
		if c.Failure != nil && !strings.Contains(c.Failure.Text, "screenshot: ") {
			t.Errorf("failure text names no screenshot: %s", c.Failure.Text)
		}
	}

	// The shards are the commands the Kubernetes Job runs: its container
	// script, once per completion index, with its results volume mapped to
	// a local directory and its flows volume laid out as the kubelet
	// mounts a ConfigMap (hidden timestamped folder, ..data, links).
	t.Run("the Job's shards", func(t *testing.T) {
		flowsVolume := configMapVolume(t, flowSuiteDir())
		j, err := deploy.Job()
		if err != nil {
			t.Fatal(err)
		}
		script := j.Spec.Template.Spec.Containers[0].Args[0]
		n := int(*j.Spec.Completions)
		if !strings.HasSuffix(script, " /flows") {
			t.Fatalf("the Job's script does not end with its flows volume: %s", script)
		}
		results := filepath.Join(out, "results")
		script = strings.ReplaceAll(strings.TrimSuffix(script, "/flows")+flowsVolume, "/results", results)
		var names []string
		var jsons, xmls []string
		for i := 0; i < n; i++ {
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Dir = t.TempDir() // no workspace: the embedded test wallet, as in the image
			cmd.Env = append(os.Environ(), env[0], "PATH="+bin+":"+os.Getenv("PATH"), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
			r := runCmd(t, cmd)
			code := r.Code
			t.Logf("index %d (exit %d):\n%s", i, code, r.Stdout)
			sj, sx := filepath.Join(results, fmt.Sprintf("summary-%d.json", i)), filepath.Join(results, fmt.Sprintf("junit-%d.xml", i))
			s := readSummary(t, sj)
			wantCode := 0
			for _, f := range s.Flows {
				names = append(names, f.Name)
				if f.Name == brokenFlow {
					wantCode = 1
				}
			}
			if code != wantCode || s.Shard != fmt.Sprintf("%d/%d", i+1, n) {
				t.Errorf("index %d: exit %d, want %d; summary shard %q\n%s", i, code, wantCode, s.Shard, tail(r.Stderr, 10))
			}
			jsons, xmls = append(jsons, sj), append(xmls, sx)
		}
		assertOnce(t, names, s)
		m := mmcpRun(t, nil, append([]string{"test", "merge-reports", "--json", filepath.Join(out, "merged.json"), "--junit", filepath.Join(out, "merged.xml")}, append(jsons, xmls...)...)...)
		if m.Code != 1 {
			t.Fatalf("merge-reports exit %d (want 1: a flow failed): %s %s", m.Code, m.Stdout, m.Stderr)
		}
		if ms := readSummary(t, filepath.Join(out, "merged.json")); ms.Total != 8 || ms.Failed != 1 {
			t.Fatalf("merged summary %d flows, %d failed", ms.Total, ms.Failed)
		}
		if mj := readJUnit(t, filepath.Join(out, "merged.xml")); mj.Tests != 8 || mj.Failures != 1 || len(mj.Suites) != n {
			t.Fatalf("merged junit %d tests %d failures %d suites", mj.Tests, mj.Failures, len(mj.Suites))
		}
	})
}

// configMapVolume lays the flow files of dir out as the kubelet mounts a
// ConfigMap volume made with `kubectl create configmap --from-file=dir`:
// the real files in a hidden "..<timestamp>" folder, a "..data" link to
// it, and for each file a top-level link through "..data".
func configMapVolume(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	ts := "..2025_05_20_10_00_00.123456789"
	if err := os.Mkdir(filepath.Join(root, ts), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ts, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..data", e.Name()), filepath.Join(root, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(ts, filepath.Join(root, "..data")); err != nil {
		t.Fatal(err)
	}
	return root
}

// assertOnce checks that the shards ran every flow of the suite once.
func assertOnce(t testing.TB, names []string, suite flowSummary) {
	t.Helper()
	var want []string
	for _, f := range suite.Flows {
		want = append(want, f.Name)
	}
	sort.Strings(names)
	sort.Strings(want)
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the shards ran\n%s\nwant each of\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

// TestFlowExport: a session that clicked by a11yRef is exported to a flow
// file whose steps name the elements by role and name, and `mmcp test` of
// that file passes on the same build.
func TestFlowExport(t *testing.T) {
	h, ws := walletHost(t)
	var launched struct {
		SessionID string `json:"sessionId"`
	}
	must(t, h.Call("mm_launch", map[string]any{"stateMode": "default", "goal": "open settings and come back by refs"})).Decode(t, &launched)
	clickByRef := func(role, name string) {
		t.Helper()
		var snap struct {
			Nodes []struct{ Ref, Role, Name string }
		}
		must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)
		for _, n := range snap.Nodes {
			if n.Role == role && n.Name == name {
				must(t, h.Call("mm_click", map[string]any{"a11yRef": n.Ref}))
				return
			}
		}
		t.Fatalf("no %s %q in %+v", role, name, snap.Nodes)
	}
	clickByRef("button", "Settings")
	clickByRef("button", "Back")
	clickByRef("button", "Settings")
	must(t, h.Call("mm_cleanup", map[string]any{}))

	flow := filepath.Join(t.TempDir(), "exported.flow.yaml")
	r := mmcpRun(t, nil, "--repo", ws, "flow", "export", launched.SessionID, "--out", flow)
	if r.Code != 0 {
		t.Fatalf("export exit %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	b, _ := os.ReadFile(flow)
	t.Logf("exported flow:\n%s", b)
	for _, want := range []string{"name: open settings and come back by refs", "role: button", "name: Back", "recordedRef: e", "screen: settings"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if strings.Contains(string(b), "a11yRef") {
		t.Error("the export kept an a11yRef")
	}
	r = mmcpRun(t, nil, "--repo", ws, "--headless", "test", flow)
	if r.Code != 0 {
		t.Fatalf("mmcp test of the export: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}

	// A session id that was never recorded is a clear error.
	r = mmcpRun(t, nil, "--repo", ws, "flow", "export", "mm-20200101-000000-000000", "--out", flow)
	if r.Code != 1 || !strings.Contains(r.Stderr, "no recorded session") {
		t.Fatalf("unknown session: exit %d %s", r.Code, r.Stderr)
	}
}
