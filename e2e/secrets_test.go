package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// secretsPage has a password input, a text input with a neutral id
// (#pw-new), a textarea known only by its accessible name, and a recovery
// phrase shown on screen under a neutral testid, as a reveal screen shows it.
func secretsPage(t testing.TB) *httptest.Server {
	t.Helper()
	var shown []string
	for i, w := range strings.Fields(e2eSRP) {
		shown = append(shown, fmt.Sprintf("<span>%d. %s</span>", i+1, w))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>secrets</title></head><body>
<input data-testid="pass-box" type="password" aria-label="Box">
<input id="pw-new" type="text" aria-label="New">
<textarea data-testid="notes" aria-label="Notes"></textarea>
<div data-testid="shown-words">%s</div>
</body></html>`, strings.Join(shown, " "))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestNoSecretsAnywhere types a password and an SRP through a testId, a
// neutral selector, an a11yRef and inside mm_run_steps (mm_clipboard
// included), shows an SRP on screen under a testid, and sends a malformed
// private key; then none of them appears in the host's trace log, the
// artifacts, the client's JSONL log or its sidecars, and the error of the
// malformed key holds no part of it. Artifacts are 0600 in 0700 dirs.
func TestNoSecretsAnywhere(t *testing.T) {
	ws := walletWorkspace(t)
	srv := secretsPage(t)
	stderr := &testutil.Buffer{}
	jsonl := &testutil.Buffer{}
	sidecars := filepath.Join(t.TempDir(), "sidecars")
	ctx := context.Background()
	h, err := client.Connect(ctx, client.Options{
		Command: client.Command{Path: filepath.Join(bin, "mmcp"), Args: []string{"--repo", ws, "--headless", "--log-level", "trace"}, Stderr: stderr},
		Log:     client.LoggerOptions{Writer: jsonl, Sidecars: true, SidecarDir: sidecars, Threshold: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	call := func(tool string, args map[string]any) json.RawMessage {
		t.Helper()
		env, err := h.CallEnvelope(ctx, tool, args)
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		return env.Result
	}
	handleLaunch(t, h)
	call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL})
	var snap struct {
		Nodes []struct{ Ref, Role, Name string }
	}
	json.Unmarshal(call("mm_accessibility_snapshot", map[string]any{}), &snap)
	refs := map[string]string{}
	for _, n := range snap.Nodes {
		refs[n.Name] = n.Ref
	}
	if refs["Notes"] == "" || refs["Box"] == "" {
		t.Fatalf("no refs for the fields: %+v", snap.Nodes)
	}
	call("mm_type", map[string]any{"testId": "pass-box", "text": e2ePassword})
	call("mm_type", map[string]any{"selector": "#pw-new", "text": e2ePassword})
	call("mm_type", map[string]any{"a11yRef": refs["Box"], "text": e2ePassword})
	call("mm_type", map[string]any{"a11yRef": refs["Notes"], "text": e2eSRP})
	call("mm_run_steps", map[string]any{"includeObservations": "all", "steps": []any{
		map[string]any{"tool": "mm_type", "args": map[string]any{"selector": "#pw-new", "text": e2ePassword}},
		map[string]any{"tool": "mm_type", "args": map[string]any{"testId": "notes", "text": e2eSRP}},
		map[string]any{"tool": "mm_clipboard", "args": map[string]any{"action": "write", "text": e2eSRP}},
		map[string]any{"tool": "mm_list_testids", "args": map[string]any{}},
	}})
	call("mm_list_testids", map[string]any{})
	call("mm_describe_screen", map[string]any{})

	// A malformed private key: the error names the field, not the value.
	const badKey = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692beZZ"
	_, err = h.CallEnvelope(ctx, "mm_seed_contract", map[string]any{"contractName": "hst", "deployerOptions": map[string]any{"fromPrivateKey": badKey}})
	if err == nil || !strings.Contains(err.Error(), "MM_INVALID_INPUT") || !strings.Contains(err.Error(), "fromPrivateKey") {
		t.Fatalf("malformed key: %v", err)
	}
	if strings.Contains(err.Error(), "8f2a5594") || strings.Contains(err.Error(), "692beZZ") {
		t.Fatalf("the error repeats the key: %v", err)
	}
	call("mm_cleanup", map[string]any{})
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}

	secrets := []string{e2ePassword, e2eSRP, "8f2a5594", "692beZZ"}
	words := strings.Fields(e2eSRP)
	for i := 0; i+1 < len(words); i++ {
		secrets = append(secrets, words[i]+" "+words[i+1], words[i]+`","`+words[i+1], words[i]+" "+itoa(i+2)+". "+words[i+1])
	}
	check := func(where, content string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(content, s) {
				t.Errorf("secret %q found in %s", s, where)
			}
		}
	}
	check("the host log (trace)", stderr.String())
	check("the client's JSONL log", jsonl.String())
	if !strings.Contains(jsonl.String(), "[redacted") {
		t.Error("the client's log has no placeholder: nothing was withheld?")
	}
	walk := func(root string, fileMode, dirMode fs.FileMode) int {
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, _ := d.Info()
			if d.IsDir() {
				if dirMode != 0 && p != root && fi.Mode().Perm() != dirMode {
					t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), dirMode)
				}
				return nil
			}
			n++
			if fi.Mode().Perm() != fileMode {
				t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), fileMode)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(p, string(b))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := walk(sidecars, 0o600, 0); n == 0 {
		t.Error("no sidecar written")
	}
	if n := walk(filepath.Join(ws, "test-artifacts", "llm-knowledge"), 0o600, 0o700); n < 12 {
		t.Errorf("only %d knowledge files", n)
	}
}
