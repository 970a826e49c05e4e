package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlowUnknownToolRefused: a flow naming a tool the host does not have
// is refused by the file check, after the host lists its tools and before
// any wallet session launches: exit 2, the file, the step and the tool
// named, no session recorded.
func TestFlowUnknownToolRefused(t *testing.T) {
	ws := walletWorkspace(t)
	dir := t.TempDir()
	flow := filepath.Join(dir, "typo.flow.yaml")
	if err := os.WriteFile(flow, []byte("name: typo\nsteps:\n  - tool: mm_get_state\n  - tool: mm_clik\n    args: {testId: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arts := filepath.Join(t.TempDir(), "artifacts")
	r := mmcpRun(t, nil, "--repo", ws, "--headless", "--artifacts-dir", arts, "test", flow)
	if r.Code != 2 || !strings.Contains(r.Stderr, `step 2 uses tool "mm_clik"`) || !strings.Contains(r.Stderr, "mm_click") {
		t.Fatalf("exit %d, want 2 naming step 2's tool\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}
	if sessions, _ := filepath.Glob(filepath.Join(arts, "llm-knowledge", "mm-*")); len(sessions) > 0 {
		t.Fatalf("a session launched before the check: %v", sessions)
	}
}
