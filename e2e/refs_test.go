package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// growingPage has Beta, a button that inserts Alpha above Beta, and one
// that replaces Beta with a look-alike. Every click writes the clicked
// button's id into the "hit" status.
func growingPage(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>grow</title></head><body>
<script>function hit(b) { document.getElementById('hit').textContent = b.id }
function mk(id, text) { const b = document.createElement('button'); b.id = id; b.textContent = text; b.onclick = () => hit(b); return b }</script>
<div id="list"><button id="beta" onclick="hit(this)">Beta</button></div>
<button id="insert" onclick="document.getElementById('list').prepend(mk('alpha', 'Alpha'))">Insert above</button>
<button id="rerender" onclick="document.getElementById('list').replaceChildren(mk('beta2', 'Beta'))">Rerender</button>
<span data-testid="hit" id="hit">none</span>
</body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

type refRecord struct {
	Tool struct {
		Name   string            `json:"name"`
		Target map[string]string `json:"target"`
	} `json:"tool"`
	Outcome struct {
		OK bool `json:"ok"`
	} `json:"outcome"`
	Observation struct {
		A11y struct{ Nodes []a11yNode } `json:"a11y"`
	} `json:"observation"`
}

// TestRefsAreExact: a ref the agent was given clicks exactly the element it
// named, or answers MM_TARGET_NOT_FOUND, after the page changed under it and
// after the record observations of other calls; the step record names the
// element the agent meant.
func TestRefsAreExact(t *testing.T) {
	h, ws := walletHost(t)
	res := launch(t, h, map[string]any{"stateMode": "onboarding"})
	sid := res["sessionId"].(string)
	url := growingPage(t)

	for _, source := range []string{"mm_describe_screen", "mm_accessibility_snapshot"} {
		t.Run(source, func(t *testing.T) {
			must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": url}))
			var out struct {
				Nodes []a11yNode
				A11y  struct{ Nodes []a11yNode }
			}
			must(t, h.Call(source, map[string]any{})).Decode(t, &out)
			nodes := append(out.Nodes, out.A11y.Nodes...)
			ref := func(name string) string {
				r := refsNamed(nodes, "button", name)
				if len(r) != 1 {
					t.Fatalf("button %q: refs %v in %s", name, r, jsonOf(nodes))
				}
				return r[0]
			}
			beta, insert, rerender := ref("Beta"), ref("Insert above"), ref("Rerender")

			// Alpha lands above Beta; this click's record observation is
			// taken with the default policy "all".
			must(t, h.Call("mm_click", map[string]any{"a11yRef": insert}))
			must(t, h.Call("mm_wait_for", map[string]any{"selector": "#alpha"}))
			must(t, h.Call("mm_click", map[string]any{"a11yRef": beta}))
			if got := testIDText(t, h, "hit"); got != "beta" {
				t.Fatalf("the old ref of Beta clicked %q", got)
			}

			// A look-alike replaces Beta: the old ref must not click it.
			must(t, h.Call("mm_click", map[string]any{"a11yRef": rerender}))
			must(t, h.Call("mm_wait_for", map[string]any{"selector": "#beta2"}))
			env := h.Call("mm_click", map[string]any{"a11yRef": beta, "timeoutMs": 1000})
			wantCode(t, env, "MM_TARGET_NOT_FOUND")
			if !strings.Contains(env.Error.Message, "mm_describe_screen") {
				t.Errorf("stale ref message gives no hint to describe again: %s", env.Error.Message)
			}
			if got := testIDText(t, h, "hit"); got != "beta" {
				t.Fatalf("the stale ref clicked %q", got)
			}

			// The record of the click on Beta names Beta.
			must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // records are written off the session lock; this waits for them
			var meant []string
			for _, r := range readRecords[refRecord](t, ws, sid) {
				if r.Tool.Name != "mm_click" || r.Tool.Target["a11yRef"] != beta || !r.Outcome.OK {
					continue
				}
				for _, n := range r.Observation.A11y.Nodes {
					if n.Ref == beta {
						meant = append(meant, n.Role+" "+n.Name)
					}
				}
			}
			if len(meant) == 0 || meant[len(meant)-1] != "button Beta" {
				t.Fatalf("records name %v for the click on %s, want button Beta", meant, beta)
			}
			var last struct {
				Steps []struct{ Tool, Snippet string }
			}
			must(t, h.Call("mm_knowledge_last", map[string]any{"n": 20})).Decode(t, &last)
			found := false
			for _, s := range last.Steps {
				if strings.Contains(s.Snippet, "ref: "+beta+" ") {
					found = true
					if !strings.Contains(s.Snippet, `(button "Beta")`) {
						t.Errorf("knowledge names another element for %s: %s", beta, s.Snippet)
					}
				}
			}
			if !found {
				t.Errorf("no knowledge step for the click on %s: %s", beta, jsonOf(last))
			}
		})
	}
}
