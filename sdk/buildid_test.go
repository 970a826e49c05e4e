package sdk_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// hostileExtension is an unpacked extension whose folder holds a link to
// /dev/zero and a FIFO nobody writes: reading either never ends.
func hostileExtension(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"manifest_version":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.js")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "a.json"), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	return dir
}

// buildID runs sdk.BuildID and fails the test when it takes over d.
func buildID(t *testing.T, ctx context.Context, dir string, d time.Duration) (string, error) {
	t.Helper()
	type answer struct {
		id  string
		err error
	}
	got := make(chan answer, 1)
	go func() {
		id, err := sdk.BuildID(ctx, dir)
		got <- answer{id, err}
	}()
	select {
	case a := <-got:
		return a.id, a.err
	case <-time.After(d):
		t.Fatalf("sdk.BuildID(%s) did not answer within %s", dir, d)
		return "", nil
	}
}

// TestBuildIDHostileFiles: a link to /dev/zero and a FIFO in the
// extension folder are left out of the hash and named, not read forever.
func TestBuildIDHostileFiles(t *testing.T) {
	dir := hostileExtension(t)
	id, err := buildID(t, context.Background(), dir, 5*time.Second)
	if id == "" || err == nil {
		t.Fatalf("id %q, err %v: want an id and a warning", id, err)
	}
	for _, name := range []string{"zero.js", "a.json"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("warning %q does not name %s", err, name)
		}
	}
	// The rest still counts: a change of manifest.json changes the id.
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"manifest_version":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if id2, _ := buildID(t, context.Background(), dir, 5*time.Second); id2 == id || id2 == "" {
		t.Fatalf("id %q after a manifest change, was %q", id2, id)
	}
}

// TestBuildIDRegular: a plain build hashes without a warning, the same
// content gives the same id, and a cancelled context stops the hash.
func TestBuildIDRegular(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"manifest.json": `{}`, "a.js": "x", "img.png": "png"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id, err := sdk.BuildID(context.Background(), dir)
	if err != nil || len(id) != 16 {
		t.Fatalf("id %q, err %v", id, err)
	}
	if again, _ := sdk.BuildID(context.Background(), dir); again != id {
		t.Fatalf("id %q then %q for the same files", id, again)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if id, err := sdk.BuildID(ctx, dir); id != "" || err == nil {
		t.Fatalf("cancelled: id %q, err %v", id, err)
	}
}
