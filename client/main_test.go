package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client/internal/testserver"
	"github.com/mmcp-dev/mmcp/internal/testutil"
)

func TestMain(m *testing.M) {
	testserver.MaybeServe()
	os.Exit(m.Run())
}

// serverCommand re-execs the test binary as the test MCP server.
func serverCommand(t testing.TB, env ...string) Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Command{Path: exe, Env: append([]string{testserver.EnvServe + "=1"}, env...)}
}

// pidFileEnv returns the env entry making the server write its pid, and a
// function reading it.
func pidFileEnv(t testing.TB) (string, func() int) {
	p := filepath.Join(t.TempDir(), "pid")
	return testserver.EnvPIDFile + "=" + p, func() int {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read pid file: %v", err)
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil {
			t.Fatal(err)
		}
		return pid
	}
}

// processGone reports whether pid no longer exists (reaped, not a zombie).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect opens a handle on the test server, closed at cleanup, logging
// into the returned buffer.
func connect(t testing.TB, opts Options, env ...string) (*Handle, *testutil.Buffer) {
	t.Helper()
	buf := &testutil.Buffer{}
	if opts.Command.Path == "" && opts.URL == "" {
		opts.Command = serverCommand(t, env...)
	}
	if opts.Log.Writer == nil {
		opts.Log.Writer = buf
	}
	h, err := Connect(testCtx(t), opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h, buf
}

// logLines parses a JSONL log into ordered key lists and values.
type logLine struct {
	keys []string
	m    map[string]any
	raw  string
}

func parseLog(t testing.TB, s string) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(bytes.NewReader([]byte(s)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		raw := sc.Text()
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		var keys []string
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("log line is not an object: %s", raw)
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatalf("log line %s: %v", raw, err)
			}
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, logLine{keys: keys, m: m, raw: raw})
	}
	return out
}

// decodeText decodes a result's JSON text.
func decodeText(t testing.TB, s string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("result %q: %v", s, err)
	}
	return m
}
