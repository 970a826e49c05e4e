package client

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestLogLineFormat(t *testing.T) {
	t.Parallel()
	h, buf := connect(t, Options{})
	ctx := testCtx(t)
	if _, err := h.Call(ctx, "echo", map[string]any{"msg": "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, "fail", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, "envelope", map[string]any{"ok": false}); err != nil {
		t.Fatal(err)
	}
	lines := parseLog(t, buf.String())
	if len(lines) != 6 {
		t.Fatalf("got %d lines:\n%s", len(lines), buf.String())
	}
	want := [][]string{
		{"name", "arguments", "_phase", "_seq"},
		{"name", "arguments", "_phase", "_seq", "_ms", "_ok", "_result"},
		{"name", "arguments", "_phase", "_seq"},
		{"name", "arguments", "_phase", "_seq", "_ms", "_ok", "_error"},
		{"name", "arguments", "_phase", "_seq"},
		{"name", "arguments", "_phase", "_seq", "_ms", "_ok", "_error", "_result"},
	}
	for i, l := range lines {
		if !reflect.DeepEqual(l.keys, want[i]) {
			t.Errorf("line %d keys = %v, want %v\n%s", i, l.keys, want[i], l.raw)
		}
	}
	if got := lines[0].raw; got != `{"name":"echo","arguments":{"msg":"hi"},"_phase":"before","_seq":1}` {
		t.Errorf("before line = %s", got)
	}
	// A small JSON result is inlined as JSON, not as a string.
	if r, ok := lines[1].m["_result"].(map[string]any); !ok || r["msg"] != "hi" || lines[1].m["_ok"] != true {
		t.Errorf("after line = %s", lines[1].raw)
	}
	if lines[3].m["_ok"] != false || !strings.Contains(lines[3].m["_error"].(string), "it failed") {
		t.Errorf("error result line = %s", lines[3].raw)
	}
	if lines[5].m["_ok"] != false || !strings.Contains(lines[5].m["_error"].(string), "MM_TEST_FAILED") {
		t.Errorf("failed envelope line = %s", lines[5].raw)
	}
}

func TestLogLargeResultsAndSidecars(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "log")
	h, buf := connect(t, Options{Log: LoggerOptions{Sidecars: true, SidecarDir: dir}})
	ctx := testCtx(t)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"big", map[string]any{"n": 150}},  // inline: under the threshold
		{"big", map[string]any{"n": 1000}}, // sidecar 2-big.txt
		{"image", nil},
		{"big", map[string]any{"n": 300}}, // sidecar 4-big.txt
	} {
		if _, err := h.Call(ctx, c.name, c.args); err != nil {
			t.Fatal(err)
		}
	}
	lines := parseLog(t, buf.String())
	results := []any{lines[1].m["_result"], lines[3].m["_result"], lines[5].m["_result"], lines[7].m["_result"]}
	want := []any{
		strings.Repeat("x", 150),
		"[text 1000 chars -> " + filepath.Join(dir, "2-big.txt") + "]",
		"[image image/png 68 bytes]",
		"[text 300 chars -> " + filepath.Join(dir, "4-big.txt") + "]",
	}
	if !reflect.DeepEqual(results, want) {
		t.Fatalf("_result values = %q\nwant %q", results, want)
	}
	for name, n := range map[string]int{"2-big.txt": 1000, "4-big.txt": 300} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) != n {
			t.Fatalf("sidecar %s: %d bytes, %v", name, len(b), err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("sidecar dir has %d files, want 2", len(entries))
	}
}

func TestLogLargeResultWithoutSidecars(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "log")
	h, buf := connect(t, Options{Log: LoggerOptions{SidecarDir: dir, Threshold: 50}})
	if _, err := h.Call(testCtx(t), "big", map[string]any{"n": 60}); err != nil {
		t.Fatal(err)
	}
	lines := parseLog(t, buf.String())
	if got := lines[1].m["_result"]; got != "[text 60 chars]" {
		t.Fatalf("_result = %v", got)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("sidecar dir exists with sidecars off: %v", err)
	}
}

func TestLogRedactsSecrets(t *testing.T) {
	t.Parallel()
	const srp = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	const pw = "correct horse battery staple"
	cases := map[string]struct {
		args    map[string]any
		secrets []string
	}{
		// Typed text is withheld whatever the target: the client cannot see
		// the field.
		"testId":           {map[string]any{"text": pw, "testId": "create-password-new"}, []string{pw}},
		"neutral selector": {map[string]any{"text": pw, "selector": "#pw-new"}, []string{pw}},
		"a11yRef":          {map[string]any{"text": pw, "a11yRef": "e7"}, []string{pw}},
		"amount field":     {map[string]any{"text": "0.0123", "testId": "amount"}, []string{"0.0123"}},
		"secret argument":  {map[string]any{"password": pw, "fromPrivateKey": key}, []string{pw, key}},
		"batch": {map[string]any{"steps": []any{
			map[string]any{"tool": "mm_type", "args": map[string]any{"a11yRef": "e3", "text": pw}},
			map[string]any{"tool": "mm_clipboard", "args": map[string]any{"action": "write", "text": srp}},
			map[string]any{"tool": "mm_seed_contract", "args": map[string]any{"deployerOptions": map[string]any{"fromPrivateKey": key}}},
		}}, []string{pw, srp, key, "spread"}},
		"phrase in any string": {map[string]any{"goal": "import " + srp}, []string{"spread", "cradle"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			h, buf := connect(t, Options{Log: LoggerOptions{Sidecars: true, SidecarDir: dir, Threshold: 20}})
			res, err := h.Call(testCtx(t), "echo", c.args)
			if err != nil {
				t.Fatal(err)
			}
			// The server got the real values.
			if echo := decodeText(t, Text(res)); !reflect.DeepEqual(echo, c.args) {
				t.Fatalf("server got %v, want %v", echo, c.args)
			}
			// Neither the log (before and after lines) nor the sidecar of
			// the echoed result holds them.
			logged := buf.String()
			entries, _ := os.ReadDir(dir)
			if len(entries) == 0 {
				t.Fatalf("no sidecar written:\n%s", logged)
			}
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				logged += string(b)
				if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
					t.Errorf("sidecar mode %v", fi.Mode().Perm())
				}
			}
			for _, s := range c.secrets {
				if strings.Contains(logged, s) {
					t.Errorf("secret %q reached the log or a sidecar:\n%s", s, logged)
				}
			}
			if !strings.Contains(logged, "[redacted ") {
				t.Errorf("no placeholder logged:\n%s", logged)
			}
		})
	}
}

func TestLogSecretsOptIn(t *testing.T) {
	t.Parallel()
	h, buf := connect(t, Options{Log: LoggerOptions{LogSecrets: true}})
	if _, err := h.Call(testCtx(t), "echo", map[string]any{"password": "hunter2"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"password":"hunter2"`) {
		t.Fatalf("LogSecrets did not log the password:\n%s", buf.String())
	}
}

// TestLogContinuesSeq: a log appended to an existing one continues its
// _seq, so sidecar names never collide.
func TestLogContinuesSeq(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "calls.jsonl")
	for round := 0; round < 2; round++ {
		last, err := LastSeq(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := connect(t, Options{Log: LoggerOptions{Writer: f, SeqOffset: last, Sidecars: true, SidecarDir: filepath.Join(dir, "side"), Threshold: 20}})
		for i := 0; i < 2; i++ {
			if _, err := h.Call(testCtx(t), "big", map[string]any{"n": 100}); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
	}
	b, _ := os.ReadFile(path)
	var seqs []any
	for _, l := range parseLog(t, string(b)) {
		if l.m["_phase"] == "before" {
			seqs = append(seqs, l.m["_seq"])
		}
	}
	if !reflect.DeepEqual(seqs, []any{1.0, 2.0, 3.0, 4.0}) {
		t.Fatalf("_seq across appends: %v", seqs)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "side")); len(entries) != 4 {
		t.Fatalf("%d sidecars, want 4", len(entries))
	}
}

// TestLogWithholdsClipboardReadBack: the text a clipboard read answers is
// what was written (withheld then) or pasted: the log keeps its length
// only, in one `mmcp call` as in the next.
func TestLogWithholdsClipboardReadBack(t *testing.T) {
	t.Parallel()
	const secret = "spread raise short crane"
	var buf strings.Builder
	l := NewLogger(LoggerOptions{Writer: &buf})
	env := `{"ok":true,"result":{"action":"read","success":true,"text":"` + secret + `"},"meta":{"timestamp":"t"}}`
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: env}}}
	args := map[string]any{"action": "read"}
	l.After(1, "mm_clipboard", args, time.Millisecond, res, nil)
	if strings.Contains(buf.String(), secret) || !strings.Contains(buf.String(), "[redacted 24 chars]") {
		t.Fatalf("clipboard read logged:\n%s", buf.String())
	}
	// Another tool's text is its own.
	buf.Reset()
	l.After(2, "mm_get_state", args, time.Millisecond, res, nil)
	if !strings.Contains(buf.String(), secret) {
		t.Fatalf("a non-clipboard result was withheld:\n%s", buf.String())
	}
}
