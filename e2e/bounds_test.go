package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
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
	ws := workspace(t, "no-deps")
	cmd := exec.Command(filepath.Join(bin, "mmcp"), "--repo", ws)
	stderr := &testutil.Buffer{}
	cmd.Stderr = stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	answers := bufio.NewReaderSize(stdout, 1<<20)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id int) map[string]any {
		t.Helper()
		for {
			line, err := answers.ReadBytes('\n')
			if err != nil {
				t.Fatalf("read answer %d: %v\nstderr:\n%s", id, err, stderr.String())
			}
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["id"] == float64(id) {
				return m
			}
		}
	}
	envelope := func(m map[string]any) map[string]any {
		t.Helper()
		res, _ := m["result"].(map[string]any)
		content, _ := res["content"].([]any)
		if len(content) == 0 {
			t.Fatalf("no content: %v", m)
		}
		var env map[string]any
		json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &env)
		return env
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bounds","version":"1"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// 30 KB of nesting in a click.
	nested := strings.Repeat(`{"a":[`, 3800) + `1` + strings.Repeat(`]}`, 3800)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mm_click","arguments":{"testId":"x","deep":` + nested + `}}}`)
	if env := envelope(answer(2)); env["ok"] != false || env["error"].(map[string]any)["code"] != "MM_INVALID_INPUT" {
		t.Fatalf("nested input: %v", env)
	}

	// 300 MB in one line, written in chunks; the id comes last.
	head := `{"method":"tools/call","params":{"name":"mm_click","arguments":{"a11yRef":"e`
	if _, err := io.WriteString(stdin, head); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("1", 1<<20))
	for i := 0; i < 300; i++ {
		if _, err := stdin.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	send(`"}},"jsonrpc":"2.0","id":3}`)
	env := envelope(answer(3))
	errObj, _ := env["error"].(map[string]any)
	if env["ok"] != false || errObj["code"] != "MM_INVALID_INPUT" || !strings.Contains(errObj["message"].(string), "--max-request-bytes") {
		t.Fatalf("oversized request: %v", env)
	}
	if rss := peakRSS(t, cmd.Process.Pid); rss > 200<<20 {
		t.Fatalf("host peak RSS %d MB after a 300 MB request", rss>>20)
	} else {
		t.Logf("host peak RSS %d MB", rss>>20)
	}
	// Still serving.
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mm_knowledge_sessions","arguments":{}}}`)
	if env := envelope(answer(4)); env["ok"] != true {
		t.Fatalf("after the oversized request: %v", env)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("host did not exit")
	}

	var records int
	filepath.WalkDir(filepath.Join(ws, "test-artifacts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "-mm_click.json") {
			return err
		}
		records++
		fi, _ := d.Info()
		if fi.Size() >= 64<<10 {
			t.Errorf("record %s is %d bytes", p, fi.Size())
		}
		return nil
	})
	if records != 1 {
		t.Fatalf("%d mm_click records, want 1 (the nested call; the oversized one never reached the runner)", records)
	}
}
