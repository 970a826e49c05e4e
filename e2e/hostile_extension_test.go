package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/testwallet"
)

// TestHostileExtensionFolder (issue 51, item 2): an extension folder
// holding a link to /dev/zero and a FIFO nobody writes does not wedge the
// session. Launch, the in-place reload and the next state read all answer
// within their bounds, and the host names both files in a warning instead
// of reading them forever.
func TestHostileExtensionFolder(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"ws","private":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, ws, `{"plugins":{"build":{"settings":{"extensionPath":"out/wallet"}}}}`)
	ext := filepath.Join(ws, "out", "wallet")
	if err := testwallet.WriteTo(ext); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ext, "zero.js")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ext, "a.json"), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}

	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
	t.Cleanup(func() { h.Call("mm_cleanup", map[string]any{}) })
	args := map[string]any{"autoBuild": false, "ports": map[string]any{"anvil": testutil.FreePort(t)}}
	if st := launchState(t, launchFree(t, h, args)); st.CurrentScreen != "home" {
		t.Fatalf("launch state %+v", st)
	}

	// Before the fix the build-id hash read zero.js forever under the
	// session lock: the reload got no answer in 20 s, the next state read
	// none in 45 s.
	call := func(name string, d time.Duration) Envelope {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return h.CallCtx(ctx, name, map[string]any{}, nil)
	}
	must(t, call("mm_reload_extension", 20*time.Second))
	var got struct{ State state }
	must(t, call("mm_get_state", 10*time.Second)).Decode(t, &got)
	if got.State.CurrentScreen != "home" {
		t.Fatalf("state after the reload %+v", got.State)
	}

	// The files left out of the hash are named (host log, stderr).
	named := func() bool {
		s := h.Stderr.String()
		return strings.Contains(s, "zero.js") && strings.Contains(s, "a.json")
	}
	if !eventually(10*time.Second, named) {
		t.Fatalf("no warning names zero.js and a.json; stderr:\n%s", tail(h.Stderr.String(), 3000))
	}
}
