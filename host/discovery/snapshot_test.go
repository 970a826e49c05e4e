package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n%s", path, got)
	}
}

func TestSnapshotGolden(t *testing.T) {
	p := open(t, server.URL+"/testdata/page.html")
	nodes, refs, err := Snapshot(ctxT(t, 10*time.Second), p, "")
	if err != nil {
		t.Fatal(err)
	}
	if refs.Len() != len(nodes) {
		t.Errorf("refs %d, nodes %d", refs.Len(), len(nodes))
	}
	golden(t, "snapshot", nodes)

	t.Run("rootSelector", func(t *testing.T) {
		nodes, _, err := Snapshot(ctxT(t, 10*time.Second), p, `[data-testid="confirm-dialog"]`)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "snapshot-dialog", nodes)
	})
	t.Run("rootSelector errors", func(t *testing.T) {
		_, _, err := Snapshot(ctxT(t, 5*time.Second), p, "#nothing-here")
		wantCode(t, err, sdk.CodeTargetNotFound, "rootSelector")
		_, _, err = Snapshot(ctxT(t, 5*time.Second), p, "div[[[")
		wantCode(t, err, sdk.CodeInvalidInput, "rootSelector")
	})
	t.Run("observe", func(t *testing.T) {
		ids, nodes, refs, err := Describe(ctxT(t, 10*time.Second), p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if refs.Len() != len(nodes) {
			t.Errorf("refs %d, nodes %d", refs.Len(), len(nodes))
		}
		golden(t, "observe", map[string]any{"testIds": ids, "nodes": nodes})
	})
	t.Run("testids", func(t *testing.T) {
		ids, err := TestIDs(ctxT(t, 10*time.Second), p, 0)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "testids", ids)
		few, err := TestIDs(ctxT(t, 10*time.Second), p, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(few) != 3 {
			t.Errorf("limit 3 gave %d items", len(few))
		}
	})
}

// TestWalkGoldenEdge pins the walk's output on a page of the cases its
// helpers treat apart (explicit roles, aria-disabled ancestors, fieldsets,
// labels, labelledby, contenteditable, visibility, content-visibility,
// shadow roots and slots, a frame), whole and scoped: a faster walk must
// keep it byte for byte.
func TestWalkGoldenEdge(t *testing.T) {
	p := open(t, server.URL+"/testdata/edge.html")
	ctx := ctxT(t, 10*time.Second)
	ids, nodes, _, err := Describe(ctx, p, MaxTestIDLimit)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"testIds": ids, "nodes": nodes}
	for _, root := range []string{"my-el", "[role=dialog] [role=dialog]"} {
		scoped, _, err := Snapshot(ctx, p, root)
		if err != nil {
			t.Fatal(err)
		}
		got[root] = scoped
	}
	golden(t, "edge", got)
}

// The in-page walk (snapshot and observation) must describe the fixture
// page exactly as Chrome's own accessibility tree does, whole and scoped.
func TestWalkAgreesWithAXTree(t *testing.T) {
	p := open(t, server.URL+"/testdata/page.html")
	for _, root := range []string{"", `[data-testid="confirm-dialog"]`} {
		ax, err := axSnapshot(ctxT(t, 10*time.Second), p, root)
		if err != nil {
			t.Fatal(err)
		}
		snap, _, err := Snapshot(ctxT(t, 10*time.Second), p, root)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(ax)
		o, _ := json.Marshal(snap)
		if !bytes.Equal(a, o) {
			t.Errorf("snapshot %q differs from AX tree\nax:   %s\nsnap: %s", root, a, o)
		}
		if root != "" {
			continue
		}
		_, obs, err := Observe(ctxT(t, 10*time.Second), p, 0, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if o, _ := json.Marshal(obs); !bytes.Equal(a, o) {
			t.Errorf("observe differs from AX tree\nax:  %s\nobs: %s", a, o)
		}
	}
}

// The same on the benchmark's rows page: labelled fields, selects, links
// and headings.
func TestWalkAgreesWithAXTreeRows(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<h1>Rows</h1><button data-testid="counter">Count</button><main>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&sb, `<section><h2>Row %d</h2><p>text %d <b>bold</b></p><a href="#r%d">link %d</a><label>field %d <input></label><button>b%d</button><select aria-label="pick %d"><option>one</option></select><input type="checkbox" id="c%d"><label for="c%d">check %d</label><button disabled>off %d</button></section>`, i, i, i, i, i, i, i, i, i, i, i)
	}
	sb.WriteString(`</main><h3></h3><div role="status"></div><div role="status" aria-label="Saved"></div>`)
	p := openHTML(t, sb.String())
	ax, err := axSnapshot(ctxT(t, 10*time.Second), p, "")
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := Snapshot(ctxT(t, 10*time.Second), p, "")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(ax)
	o, _ := json.Marshal(snap)
	if !bytes.Equal(a, o) {
		t.Errorf("snapshot differs from AX tree\nax:   %s\nsnap: %s", a, o)
	}
	// Unnamed headings and statuses are left out, named ones kept.
	last := snap[len(snap)-1]
	for _, n := range snap {
		if n.Name == "" && (n.Role == "heading" || n.Role == "status") {
			t.Errorf("unnamed %s in the tree", n.Role)
		}
	}
	if last.Role != "status" || last.Name != "Saved" {
		t.Errorf("last node %+v, want status Saved", last)
	}
}
