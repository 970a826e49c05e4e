package discovery

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// treeNodes are the trimmed tree's nodes, sent by the page as text (see
// collect.js): a node a line, its role, name and states (D disabled, C/c
// checked or not, E/e expanded or not, S selected), then its path's labels, separated
// by tabs. Nodes of the same path share its list.
type treeNodes []observation.A11yNode

func (t *treeNodes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		*t = treeNodes{}
		return nil
	}
	lines := strings.Split(s, "\n")
	nodes := make([]observation.A11yNode, len(lines))
	paths := map[string][]string{"": {}}
	for i, l := range lines {
		role, rest, ok := strings.Cut(l, "\t")
		name, rest, ok2 := strings.Cut(rest, "\t")
		if !ok || !ok2 {
			return fmt.Errorf("tree node %d: %q is not role, name and states", i, l)
		}
		states, path, _ := strings.Cut(rest, "\t")
		n := &nodes[i]
		n.Role, n.Name = role, name
		for _, c := range states {
			v := c == 'D' || c == 'C' || c == 'E' || c == 'S'
			switch c {
			case 'D':
				n.Disabled = &v
			case 'C', 'c':
				n.Checked = &v
			case 'E', 'e':
				n.Expanded = &v
			case 'S':
				n.Selected = &v
			default:
				return fmt.Errorf("tree node %d: unknown state %q", i, c)
			}
		}
		p, ok := paths[path]
		if !ok {
			p = strings.Split(path, "\t")
			p = p[:len(p):len(p)]
			paths[path] = p
		}
		n.Path = p
	}
	*t = nodes
	return nil
}
