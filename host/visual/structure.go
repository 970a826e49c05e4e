package visual

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// StructureDirName is the structure baselines' folder, beside the visual
// baselines' (test/structure-baselines in a workspace).
const StructureDirName = "structure-baselines"

// StructureDir is where the structure baselines of s live.
func (s Store) StructureDir() string { return filepath.Join(filepath.Dir(s.Dir), StructureDirName) }

// StructNode is a node of the trimmed tree as a structure check compares
// it: role, name, states (outline flags: "disabled", "checked", ...,
// comma-separated) and path (the dialog and heading labels above it); no
// ref.
type StructNode struct {
	Role   string   `json:"role"`
	Name   string   `json:"name"`
	States string   `json:"states,omitempty"`
	Path   []string `json:"path"`
}

func (n StructNode) key() string {
	return n.Role + "\x00" + n.Name + "\x00" + strings.Join(n.Path, "\x01")
}

// structureFile is a structure baseline: test/structure-baselines/<name>.json.
type structureFile struct {
	Name  string       `json:"name"`
	Root  string       `json:"rootSelector,omitempty"`
	Masks string       `json:"masks"`
	Nodes []StructNode `json:"nodes"`
}

// NodeDiff is a node added, removed or changed: the node (for a removed
// one, as the baseline had it), its index in its tree, and for a changed
// one what the baseline had.
type NodeDiff struct {
	StructNode
	At   int         `json:"at"`
	From *StructNode `json:"from,omitempty"`
}

// StructureInput is one structure check.
type StructureInput struct {
	Name  string
	Root  string
	Masks string
	Nodes []StructNode
	// Strict (the default) fails on added nodes too; otherwise the
	// baseline's nodes need only be there, in order, unchanged.
	Strict bool
	Update bool
}

// StructureOutcome is what a structure check found.
type StructureOutcome struct {
	Status       string     `json:"status"`
	Nodes        int        `json:"nodes"`
	Added        []NodeDiff `json:"added"`
	Removed      []NodeDiff `json:"removed"`
	Changed      []NodeDiff `json:"changed"`
	BaselinePath string     `json:"baselinePath"`
}

// CheckStructure compares in.Nodes with the baseline of in.Name, or
// writes it when there is none or in.Update is set. Errors:
// MM_INVALID_INPUT (the name), MM_BASELINE_INVALID (the baseline is not
// a structure baseline, or not a regular file).
func (s Store) CheckStructure(in StructureInput) (StructureOutcome, error) {
	if err := ValidName(in.Name); err != nil {
		return StructureOutcome{}, err
	}
	out := StructureOutcome{Nodes: len(in.Nodes), Added: []NodeDiff{}, Removed: []NodeDiff{}, Changed: []NodeDiff{},
		BaselinePath: filepath.Join(s.StructureDir(), in.Name+".json")}
	old, err := readRegular(out.BaselinePath, "structure baseline")
	var refused *sdk.Error
	switch {
	case errors.As(err, &refused):
		return StructureOutcome{}, refused
	case errors.Is(err, fs.ErrNotExist) || in.Update:
		out.Status = StatusCreated
		if err == nil {
			out.Status = StatusUpdated
		}
		// readable in a review: <network>, not \u003cnetwork\u003e
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(structureFile{Name: in.Name, Root: in.Root, Masks: in.Masks, Nodes: in.Nodes})
		if err := writeRegular(out.BaselinePath, b.Bytes(), "structure baseline", committed); err != nil {
			if errors.As(err, &refused) {
				return StructureOutcome{}, refused
			}
			return StructureOutcome{}, sdk.Errorf(sdk.CodeInternal, "structure check %q: %v", in.Name, err)
		}
		return out, nil
	case err != nil:
		return StructureOutcome{}, sdk.Errorf(sdk.CodeInternal, "structure check %q: %v", in.Name, err)
	}
	var base structureFile
	if err := json.Unmarshal(old, &base); err != nil || base.Nodes == nil {
		return StructureOutcome{}, sdk.Errorf(sdk.CodeBaselineInvalid, "structure baseline %s of check %q is not one mmcp wrote (%v): check again with update: true", out.BaselinePath, in.Name, err).
			WithDetails(map[string]any{"baselinePath": out.BaselinePath})
	}
	out.Added, out.Removed, out.Changed = diffTrees(base.Nodes, in.Nodes)
	out.Status = StatusMatch
	if len(out.Removed) > 0 || len(out.Changed) > 0 || (in.Strict && len(out.Added) > 0) {
		out.Status = StatusChanged
	}
	return out, nil
}

// maxTreeCells bounds the alignment table of two trees (nodes x nodes);
// bigger trees are compared as lists of nodes in order, without it.
const maxTreeCells = 4 << 20

// diffTrees aligns two node lists on role, name and path (the longest
// common subsequence): baseline nodes left over are removed, new ones
// added; between two aligned nodes, a removed and an added node of the
// same role and path are one node changed (renamed), and aligned nodes
// whose states differ are changed.
func diffTrees(a, b []StructNode) (added, removed, changed []NodeDiff) {
	added, removed, changed = []NodeDiff{}, []NodeDiff{}, []NodeDiff{}
	pairs := align(a, b)
	i, j := 0, 0
	flush := func(ie, je int) {
		var rem, add []int
		for ; i < ie; i++ {
			rem = append(rem, i)
		}
		for ; j < je; j++ {
			add = append(add, j)
		}
		used := make([]bool, len(add))
		for _, r := range rem {
			paired := false
			for k, ad := range add {
				if !used[k] && a[r].Role == b[ad].Role && strings.Join(a[r].Path, "\x01") == strings.Join(b[ad].Path, "\x01") {
					used[k], paired = true, true
					from := a[r]
					changed = append(changed, NodeDiff{StructNode: b[ad], At: ad, From: &from})
					break
				}
			}
			if !paired {
				removed = append(removed, NodeDiff{StructNode: a[r], At: r})
			}
		}
		for k, ad := range add {
			if !used[k] {
				added = append(added, NodeDiff{StructNode: b[ad], At: ad})
			}
		}
	}
	for _, p := range pairs {
		flush(p[0], p[1])
		if a[p[0]].States != b[p[1]].States {
			from := a[p[0]]
			changed = append(changed, NodeDiff{StructNode: b[p[1]], At: p[1], From: &from})
		}
		i, j = p[0]+1, p[1]+1
	}
	flush(len(a), len(b))
	return added, removed, changed
}

// align is the longest common subsequence of a and b by key, as index
// pairs in order; past maxTreeCells, a greedy in-order match.
func align(a, b []StructNode) [][2]int {
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i] = a[i].key()
	}
	for j := range b {
		kb[j] = b[j].key()
	}
	var pairs [][2]int
	if len(a)*len(b) > maxTreeCells {
		j := 0
		for i := range ka {
			for k := j; k < len(kb); k++ {
				if ka[i] == kb[k] {
					pairs = append(pairs, [2]int{i, k})
					j = k + 1
					break
				}
			}
		}
		return pairs
	}
	n, m := len(a), len(b)
	// l[i][j] is the LCS length of a[i:] and b[j:]
	l := make([]int32, (n+1)*(m+1))
	at := func(i, j int) *int32 { return &l[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ka[i] == kb[j] {
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case ka[i] == kb[j]:
			pairs = append(pairs, [2]int{i, j})
			i++
			j++
		case *at(i+1, j) >= *at(i, j+1):
			i++
		default:
			j++
		}
	}
	return pairs
}
