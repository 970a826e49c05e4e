package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecordsDeclaredYarn: a workspace whose package.json declares
// packageManager yarn@4.2.2 has step records saying yarnVersion 4.2.2,
// not the version of the yarn on PATH.
func TestRecordsDeclaredYarn(t *testing.T) {
	h, ws := walletHost(t)
	// The recorder reads the environment at the first record.
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"wallet-ws","private":true,"packageManager":"yarn@4.2.2+sha512.0123abcd"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	must(t, h.Call("mm_get_state", map[string]any{}))
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // records are written off the session lock; this waits for them
	type rec struct {
		Environment struct {
			YarnVersion string `json:"yarnVersion"`
		} `json:"environment"`
	}
	recs := readRecords[rec](t, ws, sid)
	if len(recs) == 0 {
		t.Fatal("no step records")
	}
	for i, r := range recs {
		if r.Environment.YarnVersion != "4.2.2" {
			t.Errorf("record %d: yarnVersion %q, want the declared 4.2.2", i, r.Environment.YarnVersion)
		}
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
