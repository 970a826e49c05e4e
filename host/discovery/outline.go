package discovery

import (
	"strings"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// Outline is the compact text form of a trimmed tree
// (mm_accessibility_snapshot with format "text"): one node a line,
// `ref role:name`, the role:name pair written as in a node's path, with
// its states in brackets after the role (`e4 checkbox[checked]:Agree`;
// disabled, checked/unchecked, expanded/collapsed), indented one space per
// level of its path. A node's path (its dialog and heading ancestors, spec
// 000) is the chain of lines above it at lesser indentation; an ancestor
// that is not itself a node of the tree (above a rootSelector's subtree)
// gets a line without a ref. Every node keeps its ref, so every
// interactive element can be clicked from the outline alone. The name runs
// to the end of the line (line breaks in it become spaces): no quotes, as
// the outline travels inside the JSON envelope, where each quote would
// cost two characters.
func Outline(nodes []observation.A11yNode) string {
	var sb strings.Builder
	var open []string // the path the lines above have opened
	for _, n := range nodes {
		ctx := n.Path
		self := n.Role + ":" + n.Name
		if n.Role == "dialog" && len(ctx) > 0 && ctx[len(ctx)-1] == self {
			ctx = ctx[:len(ctx)-1] // a dialog's path ends with itself
		}
		common := 0
		for common < len(open) && common < len(ctx) && open[common] == ctx[common] {
			common++
		}
		open = open[:common]
		for _, p := range ctx[common:] {
			role, name, _ := strings.Cut(p, ":")
			line(&sb, len(open), "", role, name, "")
			open = append(open, p)
		}
		line(&sb, len(open), n.Ref, n.Role, n.Name, States(n))
		if n.Role == "dialog" || n.Role == "heading" {
			open = append(open, self)
		}
	}
	return sb.String()
}

// line writes one outline line.
func line(sb *strings.Builder, depth int, ref, role, name, states string) {
	for i := 0; i < depth; i++ {
		sb.WriteByte(' ')
	}
	if ref != "" {
		sb.WriteString(ref)
		sb.WriteByte(' ')
	}
	sb.WriteString(role)
	if states != "" {
		sb.WriteString("[" + states + "]")
	}
	sb.WriteByte(':')
	sb.WriteString(oneLine.Replace(name))
	sb.WriteByte('\n')
}

// oneLine keeps a name on its line.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// States are a node's state flags, comma-separated (disabled, checked or
// unchecked, expanded or collapsed, selected).
func States(n observation.A11yNode) string {
	var s []string
	if n.Disabled != nil && *n.Disabled {
		s = append(s, "disabled")
	}
	if n.Checked != nil {
		s = append(s, map[bool]string{true: "checked", false: "unchecked"}[*n.Checked])
	}
	if n.Expanded != nil {
		s = append(s, map[bool]string{true: "expanded", false: "collapsed"}[*n.Expanded])
	}
	if n.Selected != nil && *n.Selected {
		s = append(s, "selected")
	}
	return strings.Join(s, ",")
}
