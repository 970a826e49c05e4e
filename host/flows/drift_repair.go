package flows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// repairedSuffix ends a repaired flow's file name.
const repairedSuffix = ".repaired.flow.yaml"

// RepairedPath is where the repaired flow of the flow file at path is
// written: beside it, <name>.repaired.flow.yaml (a.flow.yaml:
// a.repaired.flow.yaml, b.yml: b.repaired.flow.yaml).
func RepairedPath(path string) string {
	dir, base := filepath.Split(path)
	for _, ext := range []string{".flow.yaml", ".flow.yml", ".flow.json", ".yaml", ".yml", ".json"} {
		if strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
			break
		}
	}
	base = strings.TrimSuffix(base, ".repaired")
	return filepath.Join(dir, base+repairedSuffix)
}

// spliceSource replaces step i (0-based) of a flow file's text by steps,
// keeping the rest of the document (its comments, its ${VAR}s) as it was.
func spliceSource(src []byte, i int, steps []Step) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("flow file: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("flow file is not a mapping")
	}
	m := doc.Content[0]
	var seq *yaml.Node
	for k := 0; k+1 < len(m.Content); k += 2 {
		if m.Content[k].Value == "steps" {
			seq = m.Content[k+1]
		}
	}
	if seq == nil || seq.Kind != yaml.SequenceNode || i < 0 || i >= len(seq.Content) {
		return nil, fmt.Errorf("flow file has no step %d", i+1)
	}
	var nodes []*yaml.Node
	for _, st := range steps {
		b, err := json.Marshal(st)
		if err != nil {
			return nil, err
		}
		var n yaml.Node
		if err := yaml.Unmarshal(b, &n); err != nil {
			return nil, err
		}
		blockStyle(&n)
		nodes = append(nodes, n.Content[0])
	}
	if len(nodes) > 0 {
		nodes[0].HeadComment = "repaired: was " + stepLine(seq.Content[i])
	}
	seq.Content = append(seq.Content[:i:i], append(nodes, seq.Content[i+1:]...)...)
	seq.Style &^= yaml.FlowStyle
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stepLine is a step node in one line (flow style).
func stepLine(n *yaml.Node) string {
	c := *n
	c.Style |= yaml.FlowStyle
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	b, err := yaml.Marshal(&c)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// LineDiff is a readable diff of two texts: the changed lines, "-" the
// old and "+" the new, with two lines of context and "@@ line N" before
// each hunk.
func LineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
		at   int // the old text's line number (1-based)
	}
	var ls []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ls = append(ls, line{' ', x[i], i + 1})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ls = append(ls, line{'-', x[i], i + 1})
			i++
		default:
			ls = append(ls, line{'+', y[j], i + 1})
			j++
		}
	}
	const context = 2
	show := make([]bool, len(ls))
	for k, l := range ls {
		if l.op != ' ' {
			for m := max(0, k-context); m <= min(len(ls)-1, k+context); m++ {
				show[m] = true
			}
		}
	}
	var out strings.Builder
	for k, l := range ls {
		if !show[k] {
			continue
		}
		if k == 0 || !show[k-1] {
			fmt.Fprintf(&out, "@@ line %d\n", l.at)
		}
		fmt.Fprintf(&out, "%c %s\n", l.op, l.text)
	}
	return out.String()
}
