package checkpoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// A fork's wallet state names the fork's chain: the saved chain's port is
// replaced in the RPC URLs, nothing else.
func TestWalletFor(t *testing.T) {
	c := &Checkpoint{Chain: &Chain{ChainID: 1337, Port: 8545},
		Wallet: json.RawMessage(`{"data":{"n":{"rpcUrl":"http://localhost:8545","b":"http://127.0.0.1:8545/x","c":"http://localhost:85450","d":"8545"}}}`)}
	got := string(c.WalletFor(40001))
	want := `{"data":{"n":{"rpcUrl":"http://localhost:40001","b":"http://127.0.0.1:40001/x","c":"http://localhost:85450","d":"8545"}}}`
	if got != want {
		t.Fatalf("WalletFor:\n got %s\nwant %s", got, want)
	}
	if string(c.WalletFor(8545)) != string(c.Wallet) {
		t.Fatal("the same port changed the state")
	}
	old := &Checkpoint{Chain: &Chain{ChainID: 1337}, Wallet: json.RawMessage(`"http://localhost:8545"`)}
	if got := string(old.WalletFor(9)); got != `"http://localhost:9"` {
		t.Fatalf("a checkpoint without a port (the default 8545): %s", got)
	}
}

// Find takes a name (the newest of that name among every session's and
// the imported ones), <sessionId>/<name>, or an exported file; anything
// else is MM_CHECKPOINT_NOT_FOUND listing the names there are.
func TestFind(t *testing.T) {
	root := Root(t.TempDir())
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"mm-old", "mm-new", "mm-other"} {
		name := "A"
		if id == "mm-other" {
			name = "B"
		}
		c := &Checkpoint{Name: name, SessionID: id, SavedAt: t0.Add(time.Duration(i) * time.Hour), Wallet: json.RawMessage(`{}`)}
		if err := root.Store(id).Save(c, []byte(`"0x`+id+`"`)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := root.Find("A")
	if err != nil || s.SessionID != "mm-new" || string(s.ChainState) != `"0xmm-new"` {
		t.Fatalf("Find(A) = %+v, %v; want mm-new's", s, err)
	}
	if s, err := root.Find("mm-old/A"); err != nil || s.SessionID != "mm-old" || string(s.ChainState) != `"0xmm-old"` {
		t.Fatalf("Find(mm-old/A) = %+v, %v", s, err)
	}
	_, err = root.Find("C")
	if code(err) != sdk.CodeCheckpointNotFound || !strings.Contains(err.Error(), "[A B]") {
		t.Fatalf("Find(C) = %v, want %s listing [A B]", err, sdk.CodeCheckpointNotFound)
	}

	// Exported, then found by its path and imported.
	f := filepath.Join(t.TempDir(), "sub", "a.checkpoint.json")
	if err := WriteFile(s, f); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
		t.Fatalf("exported file %v, want 0600", fi.Mode().Perm())
	}
	got, err := root.Find(f)
	if err != nil || got.SessionID != "mm-new" || got.Name != "A" || string(got.ChainState) != `"0xmm-new"` || got.From != f {
		t.Fatalf("Find(file) = %+v, %v", got, err)
	}
	got.SavedAt = t0.Add(10 * time.Hour)
	if err := root.Store(Imported).Import(got); err != nil {
		t.Fatal(err)
	}
	if s, err := root.Find("A"); err != nil || !strings.HasSuffix(s.From, filepath.Join(Imported, "A")) {
		t.Fatalf("after the import, Find(A) = %+v, %v; want the imported one (newest)", s, err)
	}

	bad := filepath.Join(t.TempDir(), "x.json")
	_ = os.WriteFile(bad, []byte(`{"format":"other"}`), 0o600)
	if _, err := root.Find(bad); code(err) != sdk.CodeInvalidInput {
		t.Fatalf("a file that is no checkpoint: %v", err)
	}
}
