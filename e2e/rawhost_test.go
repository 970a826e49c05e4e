package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// rawHost drives a host over stdio with hand-written JSON-RPC, for what an
// MCP client library hides: requests of any size, cancellation
// notifications, answers in the order they come.
type rawHost struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	Stderr *testutil.Buffer

	mu       sync.Mutex
	cond     *sync.Cond
	answers  map[float64]rawAnswer
	progress map[string]int // progress notifications by token
	closed   bool
}

// rawAnswer is one response and when it arrived.
type rawAnswer struct {
	msg map[string]any
	at  time.Time
}

// startRawHost starts bin/mmcp with args and initializes the session.
func startRawHost(t testing.TB, args ...string) *rawHost {
	t.Helper()
	h := &rawHost{t: t, Stderr: &testutil.Buffer{}, answers: map[float64]rawAnswer{}, progress: map[string]int{}}
	h.cond = sync.NewCond(&h.mu)
	h.cmd = exec.Command(filepath.Join(bin, "mmcp"), args...)
	h.cmd.Stderr = h.Stderr
	h.stdin, _ = h.cmd.StdinPipe()
	stdout, _ := h.cmd.StdoutPipe()
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go h.read(stdout)
	t.Cleanup(func() { h.Close() })
	h.Send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	h.Answer(0)
	h.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

func (h *rawHost) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			h.mu.Lock()
			if id, ok := m["id"].(float64); ok {
				h.answers[id] = rawAnswer{m, time.Now()}
			} else if m["method"] == "notifications/progress" {
				p, _ := m["params"].(map[string]any)
				h.progress[fmt.Sprint(p["progressToken"])]++
			}
			h.cond.Broadcast()
			h.mu.Unlock()
		}
		if err != nil {
			h.mu.Lock()
			h.closed = true
			h.cond.Broadcast()
			h.mu.Unlock()
			return
		}
	}
}

// Send writes one line.
func (h *rawHost) Send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		h.t.Fatal(err)
	}
}

// Call sends a tools/call with id (and a progress token "p<id>").
func (h *rawHost) Call(id int, tool string, args any) {
	h.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{"progressToken": fmt.Sprintf("p%d", id)}}})
	h.Send(string(b))
}

// Cancel sends notifications/cancelled for request id.
func (h *rawHost) Cancel(id int) {
	h.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"test"}}`, id))
}

// wait blocks until cond holds (under mu) or a minute passes.
func (h *rawHost) wait(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.AfterFunc(time.Minute, func() { h.mu.Lock(); h.closed = true; h.cond.Broadcast(); h.mu.Unlock() })
	defer deadline.Stop()
	h.mu.Lock()
	defer h.mu.Unlock()
	for !cond() {
		if h.closed {
			h.t.Fatalf("no %s\nstderr:\n%s", what, tail(h.Stderr.String(), 30))
		}
		h.cond.Wait()
	}
}

// Answer waits for the response to id.
func (h *rawHost) Answer(id int) rawAnswer {
	h.t.Helper()
	var a rawAnswer
	h.wait(fmt.Sprintf("answer to %d", id), func() bool {
		var ok bool
		a, ok = h.answers[float64(id)]
		return ok
	})
	return a
}

// Answered reports whether id has been answered.
func (h *rawHost) Answered(id int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.answers[float64(id)]
	return ok
}

// Envelope waits for the response to id and decodes its envelope.
func (h *rawHost) Envelope(id int) map[string]any {
	h.t.Helper()
	m := h.Answer(id).msg
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		h.t.Fatalf("answer %d has no content: %v", id, m)
	}
	var env map[string]any
	json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &env)
	return env
}

// Progressed waits for the first progress notification of call id.
func (h *rawHost) Progressed(id int) {
	h.t.Helper()
	h.wait(fmt.Sprintf("progress of %d", id), func() bool { return h.progress[fmt.Sprintf("p%d", id)] > 0 })
}

// Logged waits until the host's log has a line containing all of parts.
func (h *rawHost) Logged(parts ...string) {
	h.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, l := range strings.Split(h.Stderr.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(l, p)
			}
			if all {
				return
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("log has no line with %q\n%s", parts, tail(h.Stderr.String(), 30))
		}
		time.Sleep(5 * time.Millisecond) // polls the log buffer, not the host
	}
}

// Close ends stdin and waits for the host.
func (h *rawHost) Close() {
	h.stdin.Close()
	done := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
	}
}

// code is an envelope's error code ("" when ok).
func code(env map[string]any) string {
	e, _ := env["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
