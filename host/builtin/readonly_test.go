package builtin

import (
	"encoding/json"
	"testing"
)

// TestReadOnlyTools: the read-only list names registered tools only, and a
// call is read-only exactly when its tool is listed and its arguments
// (schema defaults included) leave the page as it is; every tool that
// acts on the page, the tabs or the wallet waits for the previous record.
func TestReadOnlyTools(t *testing.T) {
	g, r := builtins(t)
	for base := range readOnly {
		if _, ok := r.Lookup(g.name(base)); !ok {
			t.Errorf("read-only list names %s, which is not a built-in tool", base)
		}
	}
	cases := []struct {
		tool, args string
		want       bool
	}{
		{"accessibility_snapshot", `{}`, true},
		{"accessibility_snapshot", `{"format":"text"}`, true},
		{"describe_screen", `{"includeScreenshot":true}`, true},
		{"list_testids", `{}`, true},
		{"get_text", `{"testId":"x"}`, true},
		{"wait_for", `{"testId":"x"}`, true},
		{"get_state", `{}`, true},
		{"screenshot", `{"name":"s","fullPage":false}`, true},
		// fullPage defaults to true (the schema), and a full-page or
		// element capture lays the page out at another size.
		{"screenshot", `{"name":"s"}`, false},
		{"screenshot", `{"name":"s","fullPage":false,"selector":"#a"}`, false},
		{"click", `{"testId":"x"}`, false},
		{"type", `{"testId":"x","text":"a"}`, false},
		{"navigate", `{"screen":"home"}`, false},
		{"wait_for_notification", `{}`, false},
		{"switch_to_tab", `{"role":"dapp"}`, false},
		{"close_tab", `{"role":"dapp"}`, false},
		{"clipboard", `{"action":"read"}`, false},
		{"visual_check", `{"name":"v"}`, false},
		{"launch", `{}`, false},
		{"cleanup", `{}`, false},
		{"run_steps", `{"steps":[]}`, false},
		{"seed_contract", `{}`, false},
	}
	for _, c := range cases {
		name := g.name(c.tool)
		if _, ok := r.Lookup(name); !ok && c.tool != "run_steps" {
			t.Errorf("%s is not registered", name)
			continue
		}
		if got := r.ReadOnly(name, json.RawMessage(c.args)); got != c.want {
			t.Errorf("%s %s read-only: %v, want %v", name, c.args, got, c.want)
		}
	}
}
