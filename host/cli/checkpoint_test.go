package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/testwallet"
)

// checkpointWorkspace is a workspace whose build is the test wallet, and
// its build id.
func checkpointWorkspace(t *testing.T, chainID int64) (string, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"w","private":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := testwallet.WriteTo(filepath.Join(ws, "dist", "chrome")); err != nil {
		t.Fatal(err)
	}
	if chainID != 0 {
		_ = os.MkdirAll(filepath.Join(ws, ".mmcp"), 0o755)
		cfg := fmt.Sprintf(`{"plugins":{"chain":{"settings":{"chainId":%d}}}}`, chainID)
		if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id, err := sdk.BuildID(context.Background(), filepath.Join(ws, "dist", "chrome"))
	if err != nil || id == "" {
		t.Fatalf("build id %q %v", id, err)
	}
	return ws, id
}

// TestCheckpointExportImport: a saved checkpoint exports to one file,
// which another workspace of the same build imports (mm_launch
// fromCheckpoint then finds it by name); a workspace on another chain id,
// or a file of another build, refuses it with MM_CHECKPOINT_MISMATCH
// naming the difference.
func TestCheckpointExportImport(t *testing.T) {
	ws, build := checkpointWorkspace(t, 0)
	c := &checkpoint.Checkpoint{Name: "A", SessionID: "mm-x", SavedAt: time.Now().UTC(), BuildID: build,
		Chain:  &checkpoint.Chain{ChainID: 1337, BlockNumber: 4, Port: 8545},
		Wallet: []byte(`{"data":{"KeyringController":{"vault":"{\"cipher\":\"x\"}"}},"meta":{"version":74}}`)}
	root := checkpoint.Root(filepath.Join(ws, "test-artifacts", "checkpoints"))
	if err := root.Store("mm-x").Save(c, []byte(`"0x1f8b"`)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "flows", "a.checkpoint.json")
	if code, out, errs := runMain(t, "--repo", ws, "checkpoint", "export", "A", "--out", file); code != 0 || !strings.Contains(out, file) {
		t.Fatalf("export: exit %d, %q %q", code, out, errs)
	}
	if code, _, _ := runMain(t, "--repo", ws, "checkpoint", "export", "A"); code != 2 {
		t.Fatalf("export without --out: exit %d, want 2", code)
	}
	if code, _, errs := runMain(t, "--repo", ws, "checkpoint", "export", "nope", "--out", file+".x"); code != 1 || !strings.Contains(errs, sdk.CodeCheckpointNotFound) {
		t.Fatalf("export of an unknown name: exit %d, %q", code, errs)
	}

	other, _ := checkpointWorkspace(t, 0)
	code, out, errs := runMain(t, "--repo", other, "checkpoint", "import", file)
	if code != 0 || !strings.Contains(out, `"fromCheckpoint": "A"`) {
		t.Fatalf("import: exit %d, %q %q", code, out, errs)
	}
	got, err := checkpoint.Root(filepath.Join(other, "test-artifacts", "checkpoints")).Find("A")
	if err != nil || got.BuildID != build || string(got.ChainState) != `"0x1f8b"` || got.Chain.BlockNumber != 4 {
		t.Fatalf("imported: %+v, %v", got, err)
	}

	chain1338, _ := checkpointWorkspace(t, 1338)
	code, _, errs = runMain(t, "--repo", chain1338, "checkpoint", "import", file)
	if code != 1 || !strings.Contains(errs, sdk.CodeCheckpointMismatch) || !strings.Contains(errs, "chain id 1337") || !strings.Contains(errs, "1338") {
		t.Fatalf("import on chain 1338: exit %d, %q", code, errs)
	}
	b, _ := os.ReadFile(file)
	tampered := filepath.Join(t.TempDir(), "b.json")
	_ = os.WriteFile(tampered, []byte(strings.Replace(string(b), build, "0123456789abcdef", 1)), 0o600)
	code, _, errs = runMain(t, "--repo", other, "checkpoint", "import", tampered)
	if code != 1 || !strings.Contains(errs, sdk.CodeCheckpointMismatch) || !strings.Contains(errs, "build 0123456789abcdef") {
		t.Fatalf("import of another build: exit %d, %q", code, errs)
	}
}
