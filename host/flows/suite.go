package flows

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// IsFlowFile says whether a directory entry is a flow file: *.flow.yaml,
// *.flow.yml, *.yaml or *.yml.
func IsFlowFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Collect lists the flow files of paths (a directory means every flow
// file under it), cleaned, sorted and without repeats.
func Collect(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && IsFlowFile(d.Name()) {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
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
// artifact directories would be one).
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
