package flows

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// IsFlowFile says whether a directory entry is a flow file: *.flow.yaml,
// *.flow.yml, *.yaml or *.yml.
func IsFlowFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Collect lists the flow files of paths, sorted and each file once: a
// file given is taken as is; a directory means every flow file under it.
// The walk follows symbolic links and skips hidden entries (a name
// starting with "."), so a Kubernetes ConfigMap volume, which holds each
// file in a hidden "..<timestamp>" folder reached through the "..data"
// link and shows it through a top-level link, yields each flow once,
// named by its top-level link. Two names of one file (links to it, or a
// path given twice) count once: the first in sorted order. A repaired
// flow (*.repaired.flow.yaml, written by mm_flow_resume beside its
// original, with the original's name) is a proposal to review: a folder's
// walk leaves it out; name its file to run it.
func Collect(paths []string) ([]string, error) {
	var found []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			found = append(found, filepath.Clean(p))
			continue
		}
		if err := walkFlows(filepath.Clean(p), map[string]bool{}, &found); err != nil {
			return nil, err
		}
	}
	sort.Strings(found)
	seen := map[string]bool{}
	var out []string
	for _, p := range found {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, err
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// walkFlows adds the flow files under dir to out, following links;
// visited holds the real paths of the directories on the way down, so a
// link to an ancestor ends the walk there.
func walkFlows(dir string, visited map[string]bool, out *[]string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if visited[real] {
		return nil
	}
	visited[real] = true
	defer delete(visited, real)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		st, err := os.Stat(p) // through a link
		if err != nil {
			return err
		}
		switch {
		case st.IsDir():
			if err := walkFlows(p, visited, out); err != nil {
				return err
			}
		case st.Mode().IsRegular() && IsFlowFile(e.Name()) && !strings.HasSuffix(e.Name(), repairedSuffix):
			*out = append(*out, p)
		}
	}
	return nil
}

// Shard is shard Index of Count (1-based).
type Shard struct{ Index, Count int }

func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard reads "I/N" (1 <= I <= N).
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard wants I/N with 1 <= I <= N, got %q", v)
	}
	return Shard{i, n}, nil
}

// Pick returns the shard's part of the sorted flow paths: path k (0-based)
// belongs to shard k mod Count + 1, so the shards never overlap, their
// union is the suite and their sizes differ by at most one. Every shard
// must be given the same paths.
func (s Shard) Pick(sorted []string) []string {
	if s.Count <= 1 {
		return sorted
	}
	var out []string
	for k, p := range sorted {
		if k%s.Count == s.Index-1 {
			out = append(out, p)
		}
	}
	return out
}

// Grep keeps the flows whose name or path matches re.
func Grep(flows []*Flow, re *regexp.Regexp) []*Flow {
	if re == nil {
		return flows
	}
	var out []*Flow
	for _, f := range flows {
		if re.MatchString(f.Name) || re.MatchString(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// UniqueNames fails when two flows share a name (their testcases and
// artifact directories would be one); distinct names have distinct IDs.
func UniqueNames(flows []*Flow) error {
	seen := map[string]string{}
	for _, f := range flows {
		if prev, ok := seen[f.ID()]; ok {
			return fmt.Errorf("%s and %s have the same name %q: give each flow a name of its own", prev, f.Path, f.Name)
		}
		seen[f.ID()] = f.Path
	}
	return nil
}

// CheckTools fails, before any flow launches, for every step whose tool
// is not one of the host's tools (names), mm_run_steps' inner steps
// included, naming the file, the step and the tools there are.
func CheckTools(suite []*Flow, names []string) error {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var bad []string
	for _, f := range suite {
		for i, st := range f.Steps {
			if !known[st.ToolName()] {
				bad = append(bad, fmt.Sprintf("%s: step %d uses tool %q", f.Path, i+1, st.ToolName()))
				continue
			}
			inner, _ := st.Args["steps"].([]any)
			for j, in := range inner {
				m, _ := in.(map[string]any)
				if tool, _ := m["tool"].(string); tool != "" && !known[tool] {
					bad = append(bad, fmt.Sprintf("%s: step %d (%s), its step %d uses tool %q", f.Path, i+1, st.Tool, j+1, tool))
				}
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return sdk.Errorf(sdk.CodeInvalidInput, "%s, which this host does not have (its tools: %s; plugin tools come with their plugins: mmcp plugins)",
		strings.Join(bad, "; "), strings.Join(names, ", ")).WithDetails(map[string]any{"unknown": bad, "available": names})
}
