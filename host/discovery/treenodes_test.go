package discovery

import (
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/host/observation"
)

func TestTreeNodesDecode(t *testing.T) {
	var c collected
	text := "heading\tSend\t\n" +
		"checkbox\tAgree\tc\n" +
		"button\tOK\tDE\tdialog:Confirm\theading:Send ETH\n" +
		"switch\t\tCe\tdialog:Confirm\theading:Send ETH"
	raw, _ := json.Marshal(map[string]any{"nodes": text, "mark": 2})
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	want := []observation.A11yNode{
		{Role: "heading", Name: "Send", Path: []string{}},
		{Role: "checkbox", Name: "Agree", Checked: &no, Path: []string{}},
		{Role: "button", Name: "OK", Disabled: &yes, Expanded: &yes, Path: []string{"dialog:Confirm", "heading:Send ETH"}},
		{Role: "switch", Checked: &yes, Expanded: &no, Path: []string{"dialog:Confirm", "heading:Send ETH"}},
	}
	got, _ := json.Marshal(c.Nodes)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) || c.Mark != 2 {
		t.Errorf("decoded %s mark %d, want %s mark 2", got, c.Mark, exp)
	}

	// nodes of one path share its list, which an append cannot grow
	// into another node's
	if &c.Nodes[2].Path[0] != &c.Nodes[3].Path[0] || cap(c.Nodes[2].Path) != 2 {
		t.Error("nodes of one path do not share a full list")
	}

	for _, bad := range []string{"button", "button\tOK\tX"} {
		raw, _ := json.Marshal(map[string]any{"nodes": bad})
		if err := json.Unmarshal(raw, &c); err == nil {
			t.Errorf("%q decoded without an error", bad)
		}
	}
	raw, _ = json.Marshal(map[string]any{"nodes": ""})
	if err := json.Unmarshal(raw, &c); err != nil || c.Nodes == nil || len(c.Nodes) != 0 {
		t.Errorf("no nodes gave %v, %v; want an empty list", c.Nodes, err)
	}
}
