package flows

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// configMapVolume lays files out as the kubelet mounts a ConfigMap volume
// (its atomic writer): the real files in a hidden "..<timestamp>" folder,
// a "..data" link to that folder, and for each key a top-level link
// through "..data".
func configMapVolume(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	ts := "..2025_05_20_10_00_00.123456789"
	if err := os.Mkdir(filepath.Join(root, ts), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, doc := range files {
		if err := os.WriteFile(filepath.Join(root, ts, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(ts, filepath.Join(root, "..data")); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestCollectConfigMapVolume: a ConfigMap volume of 3 flows yields each
// flow once, by its top-level name, and --shard i/3 of it runs each flow
// in exactly one shard.
func TestCollectConfigMapVolume(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		files[n+".flow.yaml"] = "name: " + n + "\nsteps: [{tool: mm_get_state}]\n"
	}
	root := configMapVolume(t, files)
	paths, err := Collect([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for n := range files {
		want = append(want, filepath.Join(root, n))
	}
	sort.Strings(want)
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("collected %v, want %v", paths, want)
	}
	ran := map[string]int{}
	for i := 1; i <= 3; i++ {
		var suite []*Flow
		for _, p := range (Shard{i, 3}).Pick(paths) {
			f, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			suite = append(suite, f)
		}
		if err := UniqueNames(suite); err != nil {
			t.Fatalf("shard %d/3: %v", i, err)
		}
		for _, f := range suite {
			ran[f.Name]++
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		if ran[n] != 1 {
			t.Errorf("flow %s ran in %d shards", n, ran[n])
		}
	}
}

// TestCollectLinks: a linked directory is walked, a link back to an
// ancestor ends there, a file given twice (and through a link) counts
// once, and hidden folders are skipped.
func TestCollectLinks(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	for _, d := range []string{sub, filepath.Join(root, ".git")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(sub, "x.yaml"), filepath.Join(root, ".git", "y.yaml")} {
		if err := os.WriteFile(p, []byte("name: x\nsteps: [{tool: t}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root, filepath.Join(sub, "loop")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.Symlink(sub, filepath.Join(other, "linked")); err != nil {
		t.Fatal(err)
	}
	paths, err := Collect([]string{other, root, filepath.Join(sub, "x.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || !strings.HasSuffix(paths[0], "x.yaml") {
		t.Fatalf("collected %v, want x.yaml once", paths)
	}
}

// TestArtifactFolders: a failed flow's artifacts stay inside --out
// whatever its name (".." included), and distinct names get distinct
// folders ("a b", "a/b", "a-b").
func TestArtifactFolders(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	names := []string{"..", ".", "a b", "a/b", "a-b", "../../x", strings.Repeat("long name ", 30)}
	var suite []*Flow
	for _, n := range names {
		f := &Flow{Name: n, Path: "flows/x.yaml", Steps: []Step{{Tool: "mm_click"}}}
		suite = append(suite, f)
	}
	if err := UniqueNames(suite); err != nil {
		t.Error(err)
	}
	res := Run(context.Background(), suite, Options{Parallel: 1, OutDir: out, Session: func(string) Session {
		return &fakeSession{fail: map[string]int{"mm_click": 1}}
	}})
	dirs := map[string]string{}
	for i, r := range res {
		if r.Status != StatusFailed || r.Artifacts == nil || r.Artifacts.Steps == "" {
			t.Fatalf("%q: %+v", names[i], r)
		}
		dir := filepath.Dir(r.Artifacts.Steps)
		if filepath.Dir(dir) != out {
			t.Errorf("%q: artifacts in %s, not a folder of %s", names[i], dir, out)
		}
		if prev, ok := dirs[dir]; ok {
			t.Errorf("%q and %q share %s", prev, names[i], dir)
		}
		dirs[dir] = names[i]
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("files written beside --out: %v", entries)
	}
}

// TestCheckTools: a step (or an mm_run_steps inner step) naming a tool the
// host does not have is refused, naming the file, the step and the tool.
func TestCheckTools(t *testing.T) {
	names := []string{"mm_click", "mm_get_state", "mm_run_steps", "chain_status"}
	ok := mustParse(t, "name: ok\nsteps: [{tool: mm_click, args: {testId: a}}, {tool: chain_status}, {tool: mm_run_steps, args: {steps: [{tool: mm_get_state}]}}]\n")
	if err := CheckTools([]*Flow{ok}, names); err != nil {
		t.Fatal(err)
	}
	bad := mustParse(t, "name: bad\nsteps: [{tool: mm_get_state}, {tool: mm_clik, args: {testId: a}}, {tool: mm_run_steps, args: {steps: [{tool: mm_nope}]}}]\n")
	err := CheckTools([]*Flow{ok, bad}, names)
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != sdk.CodeInvalidInput {
		t.Fatalf("err %v, want MM_INVALID_INPUT", err)
	}
	for _, want := range []string{`flows/bad.yaml: step 2 uses tool "mm_clik"`, `step 3 (mm_run_steps), its step 1 uses tool "mm_nope"`, "mm_click, mm_get_state"} {
		if !strings.Contains(se.Message, want) {
			t.Errorf("%q lacks %q", se.Message, want)
		}
	}
}
