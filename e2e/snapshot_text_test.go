package e2e

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestSnapshotTextFormat: mm_accessibility_snapshot with format "text"
// answers an outline at most half the characters of the JSON default (as
// the client receives each) on the wallet's home, the MetaMask test dapp
// and a 10,000+-node page, with a line for every node of the JSON, its ref,
// role and name; a ref read from the outline clicks its element. The JSON
// default stays as it was.
func TestSnapshotTextFormat(t *testing.T) {
	h, ws := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	pages := []struct{ name, url string }{
		{"wallet-home", ""},
		{"test-dapp", testDappServer(t).URL + "/"},
		{"10k-nodes", rowsPage(t, 800)},
	}
	actionable := map[string]bool{"button": true, "link": true, "checkbox": true, "radio": true, "switch": true, "textbox": true, "combobox": true, "menuitem": true}
	for _, pg := range pages {
		if pg.url != "" {
			must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": pg.url}))
		}
		// The two formats are compared on a page that held still while
		// both were taken: the same JSON before and after the outline (the
		// test dapp writes its network line once its provider answers).
		var js, tx Envelope
		var snap struct {
			Nodes []struct{ Ref, Role, Name string }
		}
		var out struct{ Outline string }
		for try := 0; ; try++ {
			js = must(t, h.Call("mm_accessibility_snapshot", map[string]any{}))
			js.Decode(t, &snap)
			tx = must(t, h.Call("mm_accessibility_snapshot", map[string]any{"format": "text"}))
			tx.Decode(t, &out)
			again := must(t, h.Call("mm_accessibility_snapshot", map[string]any{}))
			if string(again.Result) == string(js.Result) {
				break
			}
			if try == 10 {
				t.Fatalf("%s: the page never held still for two snapshots", pg.name)
			}
		}
		if strings.Contains(string(tx.Result), `"nodes"`) {
			t.Fatalf("%s: the text format also answers the nodes: %.200s", pg.name, tx.Result)
		}
		jn, tn := contentChars(t, js.Raw), contentChars(t, tx.Raw)
		t.Logf("%s: %d nodes, JSON %d characters, text %d (%.2fx)", pg.name, len(snap.Nodes), jn, tn, float64(tn)/float64(jn))
		if float64(tn) > 0.5*float64(jn) {
			t.Errorf("%s: the text snapshot has %d characters, more than half the JSON's %d", pg.name, tn, jn)
		}
		lines := map[string]string{} // ref -> line without indentation
		for _, l := range strings.Split(strings.TrimSuffix(out.Outline, "\n"), "\n") {
			l = strings.TrimLeft(l, " ")
			if ref, _, ok := strings.Cut(l, " "); ok && strings.HasPrefix(ref, "e") {
				lines[ref] = l
			}
		}
		interactive := 0
		for _, n := range snap.Nodes {
			if actionable[n.Role] {
				interactive++
			}
			// ref role[states]:name
			roleStates, name, _ := strings.Cut(strings.TrimPrefix(lines[n.Ref], n.Ref+" "), ":")
			role, _, _ := strings.Cut(roleStates, "[")
			if role != n.Role || name != n.Name {
				t.Fatalf("%s: outline line of %s is %q, want role %q and name %q", pg.name, n.Ref, lines[n.Ref], n.Role, n.Name)
			}
		}
		if len(lines) != len(snap.Nodes) || interactive == 0 {
			t.Fatalf("%s: outline has %d refs, JSON %d nodes (%d interactive)", pg.name, len(lines), len(snap.Nodes), interactive)
		}
	}
	// the outline's refs are the agent's refs: a click by one works
	var ref string
	var out struct{ Outline string }
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{"format": "text"})).Decode(t, &out)
	for _, l := range strings.Split(out.Outline, "\n") {
		if strings.HasSuffix(l, ` button:Count`) {
			ref, _, _ = strings.Cut(strings.TrimSpace(l), " ")
		}
	}
	if ref == "" {
		t.Fatalf("no Count button in the outline:\n%.500s", out.Outline)
	}
	must(t, h.Call("mm_click", map[string]any{"a11yRef": ref}))
	el, err := pageAt(t, bareCDP(t, ws), pages[2].url).Element(`[data-testid="counter"]`)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := el.Attribute("data-n"); err != nil || n == nil || *n != "1" {
		t.Fatalf("counter after a click by the outline's ref %s: data-n %v (%v), want 1", ref, n, err)
	}
}

// contentChars is the characters of a call's answer as the client receives
// it (its text content).
func contentChars(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			n += utf8.RuneCountInString(tc.Text)
		}
	}
	return n
}
