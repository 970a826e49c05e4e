package discovery

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-rod/rod"

	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// keptRoles are the roles the trimmed tree keeps (docs/reference.md,
// mm_accessibility_snapshot): actionable and important, with tab added
// (issue 50).
var keptRoles = map[string]bool{
	"button": true, "link": true, "checkbox": true, "radio": true, "switch": true,
	"textbox": true, "combobox": true, "menuitem": true, "tab": true,
	"dialog": true, "alert": true, "status": true, "heading": true,
}

var actionableRoles = map[string]bool{
	"button": true, "link": true, "checkbox": true, "radio": true, "switch": true,
	"textbox": true, "combobox": true, "menuitem": true, "tab": true,
}

// axNode is the part of CDP's Accessibility.AXNode the trimming reads;
// decoding only this is several times cheaper than rod's full proto types.
type axNode struct {
	NodeID           string                 `json:"nodeId"`
	Ignored          bool                   `json:"ignored"`
	Role             *axValue               `json:"role"`
	Name             *axValue               `json:"name"`
	Properties       []axProperty           `json:"properties"`
	ParentID         string                 `json:"parentId"`
	ChildIDs         []string               `json:"childIds"`
	BackendDOMNodeID proto.DOMBackendNodeID `json:"backendDOMNodeId"`
}

type axValue struct {
	Value json.RawMessage `json:"value"`
}

type axProperty struct {
	Name  string  `json:"name"`
	Value axValue `json:"value"`
}

// fullAXTree calls Accessibility.getFullAXTree for frame ("" = the top
// frame) and decodes it leanly.
func fullAXTree(p *rod.Page, frame proto.PageFrameID) ([]*axNode, error) {
	raw, err := p.Call(p.GetContext(), string(p.SessionID), proto.AccessibilityGetFullAXTree{}.ProtoReq(),
		proto.AccessibilityGetFullAXTree{FrameID: frame})
	if err != nil {
		return nil, err
	}
	var res struct {
		Nodes []*axNode `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decode AX tree: %w", err)
	}
	return res.Nodes, nil
}

// axFrame is one frame's full AX tree.
type axFrame struct {
	frame proto.PageFrameID
	nodes []*axNode
	byID  map[string]*axNode
}

func newAXFrame(frame proto.PageFrameID, nodes []*axNode) *axFrame {
	f := &axFrame{frame: frame, nodes: nodes, byID: make(map[string]*axNode, len(nodes))}
	for _, n := range nodes {
		f.byID[n.NodeID] = n
	}
	return f
}

// root is the node without a parent (the RootWebArea).
func (f *axFrame) root() *axNode {
	for _, n := range f.nodes {
		if n.ParentID == "" {
			return n
		}
	}
	return nil
}

// trimmer turns AX trees into the trimmed node list and its refs: pre-order
// over ChildIDs, ignored nodes skipped but their children walked, child
// frames spliced in at their owner iframe.
type trimmer struct {
	// owners maps an iframe's backend node id to its frame's tree.
	owners map[proto.DOMBackendNodeID]*axFrame
	nodes  []observation.A11yNode
	seen   map[*axFrame]bool
}

func newTrimmer(owners map[proto.DOMBackendNodeID]*axFrame) *trimmer {
	return &trimmer{owners: owners, nodes: []observation.A11yNode{}, seen: map[*axFrame]bool{}}
}

// contextPath is the path of n's ancestors above it (used when a snapshot is
// scoped to a subtree).
func contextPath(f *axFrame, n *axNode) []string {
	var rev []string
	for a := f.byID[n.ParentID]; a != nil; a = f.byID[a.ParentID] {
		if a.Ignored {
			continue
		}
		if r := axString(a.Role); r == "dialog" || r == "heading" {
			rev = append(rev, r+":"+axString(a.Name))
		}
	}
	path := make([]string, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		path = append(path, rev[i])
	}
	return path
}

func (t *trimmer) walk(f *axFrame, n *axNode, path []string) {
	ctx := path
	if !n.Ignored {
		if role, name := axString(n.Role), axString(n.Name); keptRoles[role] && (name != "" || (role != "heading" && role != "status")) {
			node := observation.A11yNode{
				Ref:  fmt.Sprintf("e%d", len(t.nodes)+1),
				Role: role,
				Name: name,
				Path: path,
			}
			if role == "dialog" || role == "heading" {
				ctx = append(append(make([]string, 0, len(path)+1), path...), role+":"+name)
				if role == "dialog" {
					node.Path = ctx
				}
			}
			applyStates(&node, n)
			t.nodes = append(t.nodes, node)
		}
	}
	for _, id := range n.ChildIDs {
		if c := f.byID[id]; c != nil {
			t.walk(f, c, ctx)
		}
	}
	if child := t.owners[n.BackendDOMNodeID]; child != nil && n.BackendDOMNodeID != 0 && !t.seen[child] {
		t.seen[child] = true
		if r := child.root(); r != nil {
			t.walk(child, r, ctx)
		}
	}
}

// applyStates copies disabled/checked/expanded/selected as Snapshot gives them:
// disabled only when true, checkable roles always carry checked.
func applyStates(node *observation.A11yNode, n *axNode) {
	switch node.Role {
	case "checkbox", "radio", "switch":
		node.Checked = new(bool)
	}
	for _, p := range n.Properties {
		switch p.Name {
		case "disabled", "checked", "expanded", "selected":
		default:
			continue
		}
		// booleans, or the tristate strings "true" / "false" / "mixed"
		v := strings.Trim(string(p.Value.Value), `"`)
		b := v == "true"
		switch p.Name {
		case "disabled":
			if b && actionableRoles[node.Role] {
				node.Disabled = &b
			}
		case "checked":
			if v != "mixed" {
				node.Checked = &b
			}
		case "expanded":
			if b || node.Role != "combobox" {
				node.Expanded = &b
			}
		case "selected":
			if b && node.Role == "tab" {
				node.Selected = &b
			}
		}
	}
}

func axString(v *axValue) string {
	if v == nil || len(v.Value) == 0 || v.Value[0] != '"' {
		return ""
	}
	var s string
	_ = json.Unmarshal(v.Value, &s)
	return s
}
