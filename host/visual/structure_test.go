package visual

import (
	"os"
	"path/filepath"
	"testing"
)

func btn(name string, path ...string) StructNode {
	return StructNode{Role: "button", Name: name, Path: append([]string{}, path...)}
}

// A renamed button is one node changed (from its old name), an added one
// is added, a missing one removed, a new state changed; strict fails on
// an addition, non-strict only lists it.
func TestCheckStructure(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "test", "visual-baselines"), Work: filepath.Join(dir, "work")}
	home := []StructNode{{Role: "heading", Name: "Account 1", Path: []string{}}, btn("Send", "heading:Account 1"), btn("Receive", "heading:Account 1"), btn("Lock")}
	check := func(nodes []StructNode, strict bool) StructureOutcome {
		t.Helper()
		out, err := st.CheckStructure(StructureInput{Name: "home", Masks: "wallet", Nodes: nodes, Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := check(home, true); out.Status != StatusCreated || out.BaselinePath != filepath.Join(dir, "test", "structure-baselines", "home.json") {
		t.Fatalf("first: %+v", out)
	}
	if out := check(home, true); out.Status != StatusMatch || len(out.Added)+len(out.Removed)+len(out.Changed) != 0 {
		t.Fatalf("same tree: %+v", out)
	}
	renamed := []StructNode{home[0], btn("Send now", "heading:Account 1"), home[2], btn("Swap", "heading:Account 1"), home[3]}
	out := check(renamed, true)
	if out.Status != StatusChanged || len(out.Changed) != 1 || out.Changed[0].Name != "Send now" || out.Changed[0].From.Name != "Send" || out.Changed[0].At != 1 ||
		len(out.Added) != 1 || out.Added[0].Name != "Swap" || out.Added[0].At != 3 || out.Added[0].Path[0] != "heading:Account 1" || len(out.Removed) != 0 {
		t.Fatalf("renamed Send, added Swap: %+v", out)
	}
	if out := check(append(append([]StructNode{}, home...), btn("Swap")), false); out.Status != StatusMatch || len(out.Added) != 1 {
		t.Fatalf("non-strict with an added node: %+v", out)
	}
	disabled := append([]StructNode{}, home...)
	disabled[1].States = "disabled"
	if out := check(disabled[:3], true); out.Status != StatusChanged || len(out.Removed) != 1 || out.Removed[0].Name != "Lock" ||
		len(out.Changed) != 1 || out.Changed[0].States != "disabled" {
		t.Fatalf("Send disabled, Lock gone: %+v", out)
	}
	if err := os.WriteFile(out.BaselinePath, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CheckStructure(StructureInput{Name: "home", Nodes: home, Strict: true}); codeOf(t, err) != "MM_BASELINE_INVALID" {
		t.Fatalf("a baseline with no nodes: %v", err)
	}
}
