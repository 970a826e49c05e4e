package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLILogSecretsSeqSidecars: `mmcp call --log` never writes typed text,
// continues _seq across calls appended to the same log, and with
// --sidecars writes large results next to it; `mmcp replay` refuses the
// withheld text (running nothing) until --secret supplies it.
func TestCLILogSecretsSeqSidecars(t *testing.T) {
	ws := workspace(t, "no-deps")
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.jsonl")
	const pw = "hunter2-correct-horse"
	mmcpCLI(t, ws, "call", "--log", log, "mm_type", `{"selector":"#pw-new","text":"`+pw+`"}`)
	if r := mmcpCLI(t, ws, "call", "--log", log, "--sidecars", "fixture_presets"); r.Code != 0 || len(r.Stdout) < 300 {
		t.Fatalf("fixture_presets: exit %d\n%s", r.Code, r.Stdout)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), pw) {
		t.Fatalf("typed text in the call log:\n%s", b)
	}
	var seqs []float64
	var sidecar string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad log line %q", l)
		}
		if m["_phase"] == "before" {
			seqs = append(seqs, m["_seq"].(float64))
		}
		if r, _ := m["_result"].(string); strings.Contains(r, "->") {
			sidecar = strings.TrimSuffix(r[strings.Index(r, "-> ")+3:], "]")
		}
	}
	if len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Fatalf("_seq across two calls on one log: %v", seqs)
	}
	if want := filepath.Join(dir, ".mcp-log", "2-fixture_presets.txt"); sidecar != want {
		t.Fatalf("sidecar %q, want %q\n%s", sidecar, want, b)
	}
	if s, err := os.ReadFile(sidecar); err != nil || !strings.Contains(string(s), "withNFTs") {
		t.Fatalf("sidecar: %v %s", err, s)
	}

	// Replay: refused, naming the field and the flag; nothing runs.
	r := mmcpCLI(t, ws, "replay", log)
	if r.Code != 1 || !strings.Contains(r.Stderr, "--secret") || !strings.Contains(r.Stderr, "mm_type: text") || !strings.Contains(r.Stdout, "replay: 0 calls") {
		t.Fatalf("replay of a withheld value: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	t.Setenv("MMCP_TEST_PW", pw)
	r = mmcpCLI(t, ws, "replay", log, "--keep-going", "--secret", "text=MMCP_TEST_PW")
	if !strings.Contains(r.Stdout, "replay: 2 calls") {
		t.Fatalf("replay with --secret: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r = mmcpCLI(t, ws, "replay", log, "--secret", "text=MMCP_TEST_UNSET"); r.Code != 2 || !strings.Contains(r.Stderr, "MMCP_TEST_UNSET") {
		t.Fatalf("--secret from an unset variable: exit %d\n%s", r.Code, r.Stderr)
	}
}
