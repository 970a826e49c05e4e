package e2e

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// peakRSS is a process's peak resident set (VmHWM) in bytes.
func peakRSS(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestRequestBounds: over stdio, a 30 KB deeply nested input gives a step
// record under 64 KB, and a 300 MB request answers MM_INVALID_INPUT (with
// its id, the id sent last as the TypeScript SDK does) while the host's
// peak RSS stays under 200 MB; the host keeps serving.
func TestRequestBounds(t *testing.T) {
	ws := walletWorkspace(t)
	h := startRawHost(t, "--repo", ws, "--headless")
	// Calls are recorded in a session.
	id := 1
	h.Call(id, "mm_launch", launchArgs(t))
	if env := h.Envelope(id); env["ok"] != true {
		t.Fatalf("launch: %v", env)
	}

	// 30 KB of nesting in a click.
	nested := strings.Repeat(`{"a":[`, 3800) + `1` + strings.Repeat(`]}`, 3800)
	h.Send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"mm_click","arguments":{"testId":"x","deep":` + nested + `}}}`)
	if env := h.Envelope(20); code(env) != "MM_INVALID_INPUT" {
		t.Fatalf("nested input: %v", env)
	}

	// 20,000 levels (120 KB, under the size limit) in a batch: answered
	// with its id, not a parse error with a null id.
	deep := strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat(`}`, 20000)
	h.Send(`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"mm_run_steps","arguments":{"steps":` + deep + `}}}`)
	if env := h.Envelope(19); code(env) != "MM_INVALID_INPUT" {
		t.Fatalf("deeply nested input: %v", env)
	}

	// 300 MB in one line, written in chunks; the id comes last.
	if _, err := io.WriteString(h.stdin, `{"method":"tools/call","params":{"name":"mm_click","arguments":{"a11yRef":"e`); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("1", 1<<20))
	for i := 0; i < 300; i++ {
		if _, err := h.stdin.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	h.Send(`"}},"jsonrpc":"2.0","id":21}`)
	env := h.Envelope(21)
	errObj, _ := env["error"].(map[string]any)
	if code(env) != "MM_INVALID_INPUT" || !strings.Contains(errObj["message"].(string), "--max-request-bytes") {
		t.Fatalf("oversized request: %v", env)
	}
	if rss := peakRSS(t, h.cmd.Process.Pid); rss > 200<<20 {
		t.Fatalf("host peak RSS %d MB after a 300 MB request", rss>>20)
	} else {
		t.Logf("host peak RSS %d MB", rss>>20)
	}
	// Still serving.
	h.Call(22, "mm_knowledge_sessions", map[string]any{})
	if env := h.Envelope(22); env["ok"] != true {
		t.Fatalf("after the oversized request: %v", env)
	}
	h.Call(23, "mm_cleanup", map[string]any{})
	h.Envelope(23)
	h.Close()

	var records int
	filepath.WalkDir(filepath.Join(ws, "test-artifacts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "-mm_click.json") {
			return err
		}
		records++
		fi, _ := d.Info()
		if fi.Size() >= 64<<10 {
			t.Errorf("record %s is %d bytes", p, fi.Size())
		} else {
			t.Logf("record of the nested call: %d bytes", fi.Size())
		}
		return nil
	})
	if records != 1 {
		t.Fatalf("%d mm_click records, want 1 (the nested call; the oversized one never reached the runner)", records)
	}
}
