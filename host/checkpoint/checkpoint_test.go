package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

func code(err error) string {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// A saved checkpoint reads back whole; its folder is 0700 and its files
// 0600, even under a permissive umask's parent.
func TestSaveLoad(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "sess")}
	c := &Checkpoint{Name: "A", BuildID: "b1", Chain: &Chain{ChainID: 1337, BlockNumber: 3},
		Wallet: []byte(`{"data":{"KeyringController":{"vault":"{\"cipher\":\"x\"}"}},"meta":{"version":74}}`),
		Tabs:   []Tab{{URL: "chrome-extension://x/home.html", Role: "extension", Home: true}, {URL: "http://d/", Role: "dapp", Active: true}}}
	if err := s.Save(c, []byte(`"0x1f8b"`)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("A")
	if err != nil {
		t.Fatal(err)
	}
	if got.BuildID != "b1" || got.Chain.ChainID != 1337 || len(got.Tabs) != 2 || got.Version != Version {
		t.Fatalf("loaded %+v", got)
	}
	if a, ok := got.Active(); !ok || a.URL != "http://d/" {
		t.Fatalf("active %+v", a)
	}
	if b, err := s.ChainState("A"); err != nil || string(b) != `"0x1f8b"` {
		t.Fatalf("chain state %q %v", b, err)
	}
	fi, _ := os.Stat(s.Path("A"))
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder %v", fi.Mode().Perm())
	}
	for _, f := range []string{File, ChainFile} {
		fi, _ := os.Stat(filepath.Join(s.Path("A"), f))
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s %v", f, fi.Mode().Perm())
		}
	}
}

// An unknown name is MM_CHECKPOINT_NOT_FOUND listing the saved ones; an
// unsafe name MM_INVALID_INPUT.
func TestNotFound(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if err := s.Save(&Checkpoint{Name: "saved"}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load("other")
	if code(err) != sdk.CodeCheckpointNotFound || !strings.Contains(err.Error(), "saved") {
		t.Fatalf("load of an unknown name: %v", err)
	}
	for _, bad := range []string{"../x", ".hidden", "", "a/b", strings.Repeat("a", 65)} {
		if _, err := s.Load(bad); code(err) != sdk.CodeInvalidInput {
			t.Fatalf("name %q: %v", bad, err)
		}
	}
}

// A checkpoint of another build or chain id is refused, naming both.
func TestMismatch(t *testing.T) {
	c := &Checkpoint{Name: "A", BuildID: "aaa", Chain: &Chain{ChainID: 1337}}
	if err := Mismatch(c, "aaa", 1337); err != nil {
		t.Fatal(err)
	}
	err := Mismatch(c, "bbb", 1337)
	if code(err) != sdk.CodeCheckpointMismatch || !strings.Contains(err.Error(), "aaa") || !strings.Contains(err.Error(), "bbb") {
		t.Fatalf("another build: %v", err)
	}
	err = Mismatch(c, "aaa", 1)
	if code(err) != sdk.CodeCheckpointMismatch || !strings.Contains(err.Error(), "1337") || !strings.Contains(err.Error(), "chain id 1") {
		t.Fatalf("another chain: %v", err)
	}
}
