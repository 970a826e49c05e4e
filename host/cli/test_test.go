package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/flows"
)

// runTestCmd runs `mmcp test args...` and returns its exit code and output.
func runTestCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	c, rest := lookup(append([]string{"test"}, args...))
	code := c.run(context.Background(), Input{Config: config.Config{ArtifactsDir: t.TempDir()}, Stdout: &out, Stderr: &errb}, rest)
	return code, out.String(), errb.String()
}

func writeFlow(t *testing.T, dir, name, doc string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTestRefusesBeforeRunning: usage errors and flow files that do not
// validate exit 2 with a message naming the file and the problem, before
// any host starts.
func TestTestRefusesBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	ok := writeFlow(t, dir, "ok.flow.yaml", "name: ok\nsteps: [{tool: mm_get_state}]\n")
	ref := writeFlow(t, filepath.Join(t.TempDir()), "ref.yaml", "name: r\nsteps: [{tool: mm_click, args: {a11yRef: e3}}]\n")
	dupDir := t.TempDir()
	writeFlow(t, dupDir, "a.yaml", "name: same\nsteps: [{tool: mm_get_state}]\n")
	writeFlow(t, dupDir, "b.yaml", "name: same\nsteps: [{tool: mm_get_state}]\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--shard", "4/3", ok}, 2, "1 <= I <= N"},
		{[]string{"--grep", "(", ok}, 2, "--grep"},
		{[]string{ref}, 2, "a11yRef e3"},
		{[]string{dupDir}, 2, `same name "same"`},
		{[]string{filepath.Join(dir, "missing.yaml")}, 2, "no such file"},
		{[]string{"--grep", "nothing-matches", ok}, 1, "no flows to run"},
		{[]string{"merge-reports"}, 2, "give --junit OUT"},
	} {
		code, _, stderr := runTestCmd(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("mmcp test %v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestMergeReportsCommand: merge-reports joins shard summaries and exits 1
// when the merged suite has a failure.
func TestMergeReportsCommand(t *testing.T) {
	dir := t.TempDir()
	a := flows.Summary{Flows: []flows.Result{{Name: "a", Path: "a.yaml", Status: flows.StatusPassed}}}
	b := flows.Summary{Flows: []flows.Result{{Name: "b", Path: "b.yaml", Status: flows.StatusFailed, Error: "x"}}}
	for name, s := range map[string]flows.Summary{"1.json": a, "2.json": b} {
		if err := s.WriteJSON(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteJUnit(filepath.Join(dir, strings.TrimSuffix(name, ".json")+".xml")); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "all.json")
	code, stdout, stderr := runTestCmd(t, "merge-reports", "--json", out, "--junit", filepath.Join(dir, "all.xml"),
		filepath.Join(dir, "1.json"), filepath.Join(dir, "2.json"), filepath.Join(dir, "1.xml"), filepath.Join(dir, "2.xml"))
	if code != 1 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	var m flows.Summary
	raw, _ := os.ReadFile(out)
	if err := json.Unmarshal(raw, &m); err != nil || m.Total != 2 || m.Failed != 1 {
		t.Fatalf("merged %+v %v", m, err)
	}
}
