package deploy

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestJobManifest: the manifest is a batch/v1 Indexed Job in the strict
// decoding of the Kubernetes API types, whose command runs shard
// JOB_COMPLETION_INDEX+1 of N with N its completions; a field the API does
// not have is refused.
func TestJobManifest(t *testing.T) {
	j, err := Job()
	if err != nil {
		t.Fatal(err)
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s %s", j.APIVersion, j.Kind)
	}
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatalf("not an Indexed Job with completions and parallelism: %+v", s)
	}
	if s.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("restartPolicy %q (a Job's pods must not restart in place)", s.Template.Spec.RestartPolicy)
	}
	script := ShardScript(t, j)
	m := regexp.MustCompile(`--shard "\$\(\(JOB_COMPLETION_INDEX\+1\)\)/(\d+)"`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("the command does not shard by JOB_COMPLETION_INDEX: %s", script)
	}
	if n, _ := strconv.Atoi(m[1]); n != int(*s.Completions) {
		t.Fatalf("the command shards into %d, the Job has %d completions", n, *s.Completions)
	}
	mounts := map[string]bool{}
	for _, vm := range j.Spec.Template.Spec.Containers[0].VolumeMounts {
		mounts[vm.MountPath] = true
	}
	for _, p := range []string{"/flows", "/results"} {
		if !mounts[p] || !strings.Contains(script, p) {
			t.Errorf("%s is not a mounted volume the command uses", p)
		}
	}

	bad := bytes.Replace(JobYAML, []byte("completionMode: Indexed"), []byte("completionMode: Indexed\n  completionz: 3"), 1)
	var bj batchv1.Job
	if err := yaml.UnmarshalStrict(bad, &bj); err == nil || !strings.Contains(err.Error(), "completionz") {
		t.Fatalf("an unknown field decoded: %v", err)
	}
}

// TestJobClaims: every claim the Job mounts is created by a manifest
// beside it (else its pods stay Pending), decoded strictly as a
// PersistentVolumeClaim, with a size, and ReadWriteMany when the Job's
// pods run at once (they may be on several nodes).
func TestJobClaims(t *testing.T) {
	j, err := Job()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]*corev1.PersistentVolumeClaim{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(b, &tm); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if tm.Kind != "PersistentVolumeClaim" {
			continue
		}
		var c corev1.PersistentVolumeClaim
		if err := yaml.UnmarshalStrict(b, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		claims[c.Name] = &c
	}
	mounted := 0
	for _, v := range j.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		mounted++
		c := claims[v.PersistentVolumeClaim.ClaimName]
		if c == nil {
			t.Errorf("volume %s mounts claim %q, which no manifest in kubernetes/ creates", v.Name, v.PersistentVolumeClaim.ClaimName)
			continue
		}
		if q := c.Spec.Resources.Requests[corev1.ResourceStorage]; q.IsZero() {
			t.Errorf("claim %s requests no storage", c.Name)
		}
		if *j.Spec.Parallelism > 1 && !slices.Contains(c.Spec.AccessModes, corev1.ReadWriteMany) {
			t.Errorf("claim %s is %v: %d pods at once on several nodes need ReadWriteMany", c.Name, c.Spec.AccessModes, *j.Spec.Parallelism)
		}
	}
	if mounted == 0 {
		t.Fatal("the Job mounts no claim for its results")
	}
	if c, err := Claim(); err != nil || claims[c.Name] == nil {
		t.Fatalf("Claim(): %v", err)
	}
}

// ShardScript is the shell script the Job's container runs (command
// ["/bin/sh", "-c"], the script as its one argument).
func ShardScript(t testing.TB, j *batchv1.Job) string {
	t.Helper()
	c := j.Spec.Template.Spec.Containers
	if len(c) != 1 || strings.Join(c[0].Command, " ") != "/bin/sh -c" || len(c[0].Args) != 1 {
		t.Fatalf("want one container running /bin/sh -c SCRIPT, got %+v", c)
	}
	return c[0].Args[0]
}

// TestJobShardCommands runs the Job's script for each completion index
// with a stand-in mmcp that prints its arguments: the indexes run shards
// 1/N..N/N, each once, with reports of their own.
func TestJobShardCommands(t *testing.T) {
	j, err := Job()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "mmcp")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := ShardScript(t, j)
	n := int(*j.Spec.Completions)
	var shards, junits []string
	for i := 0; i < n; i++ {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("index %d: %v", i, err)
		}
		args := strings.Split(strings.TrimSpace(string(out)), "\n")
		for k, a := range args {
			switch a {
			case "--shard":
				shards = append(shards, args[k+1])
			case "--junit":
				junits = append(junits, args[k+1])
			}
		}
	}
	sort.Strings(shards)
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, strconv.Itoa(i)+"/"+strconv.Itoa(n))
	}
	if strings.Join(shards, " ") != strings.Join(want, " ") {
		t.Fatalf("shards %v, want %v", shards, want)
	}
	seen := map[string]bool{}
	for _, p := range junits {
		seen[p] = true
	}
	if len(seen) != n {
		t.Fatalf("the indexes share JUnit files: %v", junits)
	}
}

// lint runs actionlint (its checks of expressions, matrix references,
// action inputs and job dependencies; no shellcheck) on a workflow.
func lint(t *testing.T, content []byte) []*actionlint.Error {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint("flows.yml", content, nil)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// TestWorkflowActionlint: the CI matrix example passes actionlint, and a
// mistake in it (a matrix key that does not exist) does not.
func TestWorkflowActionlint(t *testing.T) {
	b, err := os.ReadFile("github-actions/flows.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range lint(t, b) {
		t.Errorf("actionlint: %s", e.Error())
	}
	if !bytes.Contains(b, []byte("--shard ${{ matrix.shard }}/4")) || !bytes.Contains(b, []byte("shard: [1, 2, 3, 4]")) {
		t.Fatal("the workflow does not run shard i/4 for i in 1..4")
	}
	bad := bytes.Replace(b, []byte("--shard ${{ matrix.shard }}/4"), []byte("--shard ${{ matrix.shards }}/4"), 1)
	if errs := lint(t, bad); len(errs) == 0 {
		t.Fatal("actionlint passed a reference to a matrix key that does not exist")
	}
}

// instructions reads a Dockerfile's instructions (continuations joined,
// comments dropped) as [keyword, rest] pairs.
func instructions(t *testing.T, path string) [][2]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	cur := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || (line == "" && cur == "") {
			continue
		}
		cur += " " + strings.TrimSuffix(line, "\\")
		if strings.HasSuffix(line, "\\") {
			continue
		}
		kw, rest, _ := strings.Cut(strings.TrimSpace(cur), " ")
		out = append(out, [2]string{strings.ToUpper(kw), strings.TrimSpace(rest)})
		cur = ""
	}
	return out
}

// TestDockerfile: the image is Debian with Chromium, Node.js and npm from
// Debian's packages, Anvil from the pinned npm lock file, mmcp built from
// this tree; every file it copies from the build context exists.
func TestDockerfile(t *testing.T) {
	var final string
	var apt, npm bool
	for _, in := range instructions(t, "Dockerfile") {
		switch in[0] {
		case "FROM":
			final = in[1]
		case "RUN":
			if strings.Contains(in[1], "apt-get install") {
				apt = true
				for _, p := range []string{"chromium", "nodejs", "npm"} {
					if !regexp.MustCompile(`\s` + p + `(\s|$)`).MatchString(in[1]) {
						t.Errorf("apt-get install lacks %s", p)
					}
				}
			}
			npm = npm || strings.Contains(in[1], "npm ci --prefix tools")
		case "COPY":
			if strings.HasPrefix(in[1], "--from=") {
				continue
			}
			f := strings.Fields(in[1])
			for _, src := range f[:len(f)-1] {
				if _, err := os.Stat(filepath.Join("..", src)); err != nil {
					t.Errorf("COPY %s: not in the build context: %v", src, err)
				}
			}
		}
	}
	if !strings.HasPrefix(final, "debian:") || !apt || !npm {
		t.Fatalf("final image %q, apt install %v, npm ci of the pinned tools %v", final, apt, npm)
	}
}

// TestDockerfileNode: the image's Node.js, a pinned node@X.Y.Z from the
// npm registry installed before `npm ci`, satisfies the engines.node
// range of every package in the pinned lock file (Debian bookworm's
// nodejs is 18; the tools ask for >= 20, the MCP inspector for >= 22.19).
func TestDockerfileNode(t *testing.T) {
	var node string
	for _, in := range instructions(t, "Dockerfile") {
		if in[0] != "RUN" {
			continue
		}
		if m := regexp.MustCompile(`npm install -g .*\bnode@(\d+\.\d+\.\d+)\b`).FindStringSubmatch(in[1]); m != nil {
			node = m[1]
		}
		if strings.Contains(in[1], "npm ci") && node == "" {
			t.Fatal("npm ci runs before a Node.js of a pinned version is installed (Debian's nodejs is 18)")
		}
	}
	b, err := os.ReadFile("../.tools/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Engines json.RawMessage `json:"engines"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for name, p := range lock.Packages {
		var e struct {
			Node string `json:"node"`
		}
		if json.Unmarshal(p.Engines, &e) != nil || e.Node == "" {
			continue // absent, or the old array form
		}
		checked++
		if !satisfies(t, node, e.Node) {
			t.Errorf("%s asks for node %q; the image has %s", name, e.Node, node)
		}
	}
	if checked == 0 {
		t.Fatal("no engines.node range in the lock file")
	}
	for _, c := range []struct {
		v, r string
		ok   bool
	}{{"18.20.4", ">=20", false}, {"20.19.2", ">=22.19.0", false}, {"22.22.0", "^20.19.0 || >=22.12.0", true}, {"22.22.0", ">= 10.x", true}, {"22.1.0", "^22.13.0", false}} {
		if satisfies(t, c.v, c.r) != c.ok {
			t.Errorf("satisfies(%s, %q) != %v", c.v, c.r, c.ok)
		}
	}
}

// satisfies checks version v against an npm range made of ">=V" and "^V"
// comparators, alternatives joined by "||" (the forms the lock file uses;
// any other form fails the test, to be taught here).
func satisfies(t *testing.T, v, rng string) bool {
	t.Helper()
	parse := func(s string) [3]int {
		var out [3]int
		for i, p := range strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3) {
			n, err := strconv.Atoi(p)
			if err != nil && p != "x" {
				t.Fatalf("version %q in range %q", s, rng)
			}
			out[i] = n
		}
		return out
	}
	less := func(a, b [3]int) bool {
		for i := range a {
			if a[i] != b[i] {
				return a[i] < b[i]
			}
		}
		return false
	}
	have := parse(v)
	for _, alt := range strings.Split(rng, "||") {
		alt = strings.ReplaceAll(strings.TrimSpace(alt), ">= ", ">=")
		ok := true
		for _, c := range strings.Fields(alt) {
			switch {
			case strings.HasPrefix(c, ">="):
				ok = ok && !less(have, parse(c[2:]))
			case strings.HasPrefix(c, "^"):
				w := parse(c[1:])
				ok = ok && have[0] == w[0] && !less(have, w)
			default:
				t.Fatalf("range %q: comparator %q not understood", rng, c)
			}
		}
		if ok {
			return true
		}
	}
	return false
}
