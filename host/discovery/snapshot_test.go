package discovery

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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

// The cheap observation must describe the fixture page exactly as Chrome's
// own accessibility tree does.
func TestObserveAgreesWithAXTree(t *testing.T) {
	p := open(t, server.URL+"/testdata/page.html")
	ax, _, err := Snapshot(ctxT(t, 10*time.Second), p, "")
	if err != nil {
		t.Fatal(err)
	}
	_, obs, err := Observe(ctxT(t, 10*time.Second), p, 0, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(ax)
	o, _ := json.Marshal(obs)
	if !bytes.Equal(a, o) {
		t.Errorf("observe differs from AX snapshot\nax:  %s\nobs: %s", a, o)
	}
}
