package e2e

import (
	"os"
	"strings"
	"testing"
)

type structureNode struct {
	Role, Name, States string
	Path               []string
	At                 int
	From               *struct{ Role, Name, States string }
}

type structureOut struct {
	Status       string          `json:"status"`
	MaskPreset   string          `json:"maskPreset"`
	Nodes        int             `json:"nodes"`
	Added        []structureNode `json:"added"`
	Removed      []structureNode `json:"removed"`
	Changed      []structureNode `json:"changed"`
	BaselinePath string          `json:"baselinePath"`
}

// TestStructureCheck: the home screen's trimmed tree becomes a committed
// baseline (names that differ between sessions as placeholders, no
// refs); the same screen matches; a renamed button is one node changed
// and an added button one node added, each with its path; non-strict
// passes an addition; the agent's refs are left alone.
func TestStructureCheck(t *testing.T) {
	h, ws := walletHost(t)
	launch(t, h, map[string]any{})
	var snap struct {
		Nodes []snapNode `json:"nodes"`
	}
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)

	var first structureOut
	must(t, h.Call("mm_structure_check", map[string]any{"name": "home"})).Decode(t, &first)
	if first.Status != "baseline-created" || first.Nodes == 0 || first.BaselinePath != ws+"/test/structure-baselines/home.json" {
		t.Fatalf("first check: %+v", first)
	}
	b, _ := os.ReadFile(first.BaselinePath)
	if !strings.Contains(string(b), `"name": "<network>"`) || strings.Contains(string(b), "Localhost") || strings.Contains(string(b), `"ref"`) {
		t.Fatalf("the baseline keeps the port or refs:\n%s", b)
	}
	var same structureOut
	must(t, h.Call("mm_structure_check", map[string]any{"name": "home"})).Decode(t, &same)
	if same.Status != "match" {
		t.Fatalf("same screen: %+v", same)
	}

	page := pageAt(t, bareCDP(t, ws).NoDefaultDevice(), "chrome-extension://")
	page.MustEval(`() => {
  const send = document.querySelector('[data-testid="eth-overview-send"]');
  send.textContent = 'Send now';
  const swap = document.createElement('button');
  swap.textContent = 'Swap';
  send.parentElement.appendChild(swap);
}`)
	var diff structureOut
	must(t, h.Call("mm_structure_check", map[string]any{"name": "home"})).Decode(t, &diff)
	t.Logf("renamed and added: %+v", diff)
	if diff.Status != "changed" || len(diff.Changed) != 1 || len(diff.Added) != 1 || len(diff.Removed) != 0 {
		t.Fatalf("Send renamed, Swap added: %+v", diff)
	}
	if c := diff.Changed[0]; c.Role != "button" || c.Name != "Send now" || c.From == nil || c.From.Name != "Send" || c.Path == nil || c.At == 0 {
		t.Errorf("changed: %+v", c)
	}
	if a := diff.Added[0]; a.Role != "button" || a.Name != "Swap" || a.Path == nil || a.At != c0(diff).At+2 {
		t.Errorf("added: %+v", a)
	}
	var loose structureOut
	must(t, h.Call("mm_structure_check", map[string]any{"name": "home", "strict": false})).Decode(t, &loose)
	if loose.Status != "changed" || len(loose.Added) != 1 {
		t.Errorf("non-strict with a renamed node: %+v", loose)
	}
	// the refs of the snapshot still name their elements
	for _, n := range snap.Nodes {
		if n.Role == "button" && n.Name == "Receive" {
			must(t, h.Call("mm_click", map[string]any{"a11yRef": n.Ref}))
		}
	}
	wantCode(t, h.Call("mm_structure_check", map[string]any{"name": "x", "rootSelector": "#nothing-here"}), "MM_TARGET_NOT_FOUND")
}

// c0 is the first changed node.
func c0(o structureOut) structureNode { return o.Changed[0] }
