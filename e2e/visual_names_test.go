package e2e

import (
	"testing"
)

// snapNode is a node of mm_accessibility_snapshot.
type snapNode struct {
	Ref      string `json:"ref"`
	Role     string `json:"role"`
	Name     string `json:"name"`
	Selected *bool  `json:"selected"`
}

// TestVisualNamesEditedElement: the home tab label Tokens becomes
// Tokenzz in the page, which pushes the NFTs and Activity tabs right;
// the changed region names the edited tab first, in testIds and in
// elements (role tab, with its ref), then the tabs it pushed. The tabs
// are in the trimmed tree with refs, the selected one says so.
func TestVisualNamesEditedElement(t *testing.T) {
	h, ws := walletHost(t)
	launch(t, h, map[string]any{})
	var snap struct {
		Nodes []snapNode `json:"nodes"`
	}
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)
	var tokens snapNode
	tabs := 0
	for _, n := range snap.Nodes {
		if n.Role == "tab" {
			tabs++
			if n.Name == "Tokens" {
				tokens = n
			}
		}
	}
	if tabs != 3 || tokens.Ref == "" || tokens.Selected == nil || !*tokens.Selected {
		t.Errorf("the home tabs in the snapshot: %d tabs, Tokens %+v", tabs, tokens)
	}

	visualCheck(t, h, map[string]any{"name": "home-tabs"})
	br := bareCDP(t, ws).NoDefaultDevice()
	pageAt(t, br, "chrome-extension://").MustEval(`() => {
  document.querySelector('[data-testid="account-overview__asset-tab"]').textContent = 'Tokenzz';
}`)
	v := visualCheck(t, h, map[string]any{"name": "home-tabs"})
	t.Logf("Tokens -> Tokenzz: %d px, regions %+v", v.DiffPixels, v.Regions)
	if v.Status != "changed" || len(v.Regions) == 0 {
		t.Fatalf("tab label edited: %+v", v)
	}
	const edited = "account-overview__asset-tab"
	for _, r := range v.Regions {
		if len(r.TestIDs) > 0 && len(r.Elements) == 0 {
			t.Errorf("region %+v names testIds but no elements", r)
		}
	}
	var named bool
	for _, r := range v.Regions {
		if len(r.TestIDs) == 0 || r.TestIDs[0] != edited {
			continue
		}
		named = true
		if e := r.Elements[0]; e.TestID != edited || e.Role != "tab" || e.Name != "Tokenzz" || e.A11yRef != tokens.Ref {
			t.Errorf("first element of the region: %+v, want the edited tab (ref %s)", e, tokens.Ref)
		}
	}
	if !named {
		t.Fatalf("no region names %s first: %+v", edited, v.Regions)
	}
}
