package flows

import (
	"os"
	"path/filepath"
	"testing"
)

// A flow's launch.fromCheckpoint naming a file beside the flow file is
// that file wherever mmcp test runs; a name stays a name.
func TestFromCheckpointBesideTheFlow(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.checkpoint.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ref, want string }{
		{"a.checkpoint.json", filepath.Join(dir, "a.checkpoint.json")},
		{"A", "A"},
	} {
		p := filepath.Join(dir, "f.yaml")
		doc := "name: f\nlaunch:\n  fromCheckpoint: " + c.ref + "\nsteps:\n  - tool: mm_get_state\n"
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Launch["fromCheckpoint"]; got != c.want {
			t.Fatalf("fromCheckpoint %q loads as %v, want %s", c.ref, got, c.want)
		}
	}
}
