package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// bin is the directory of the built host and plugins (MMCP_BIN, or built by
// TestMain into a temp dir).
var bin string

// testPlugins is the directory holding the misbehaving test plugins.
var testPlugins string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root := repoRoot()
	tmp, err := os.MkdirTemp("", "mmcp-e2e-bin-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	bin = os.Getenv("MMCP_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "bin")
		for _, p := range []string{"mmcp", "mmcp-plugin-build", "mmcp-plugin-chain", "mmcp-plugin-contracts", "mmcp-plugin-fixture", "mmcp-plugin-mockserver"} {
			if _, err := os.Stat(filepath.Join(root, "cmd", p)); err != nil {
				continue
			}
			mustGo(root, "build", "-o", filepath.Join(bin, p), "./cmd/"+p)
		}
		mustGo(root, "build", "-o", filepath.Join(bin, "examples", "mmcp-plugin-hello"), "./examples/hello-plugin")
		mustGo(root, "build", "-o", filepath.Join(bin, "examples", "mmcp-plugin-screens"), "./examples/screens-plugin")
	}
	testPlugins = filepath.Join(tmp, "testplugins")
	mustGo(root, "build", "-o", filepath.Join(testPlugins, "testplugin"), "./e2e/testplugin")
	// Every host the suite starts (over stdio, HTTP, the CLI, the SDKs)
	// notes each step record it writes or refuses for not matching the
	// StepRecord v1 schema (knowledge.Store.SetAudit).
	audit := filepath.Join(tmp, "records.audit")
	os.Setenv("MMCP_RECORD_AUDIT", audit)
	release := holdDefaultPorts()
	defer release()
	code := m.Run()
	if !checkRecordAudit(audit) && code == 0 {
		code = 1
	}
	return code
}

// checkRecordAudit reports the record kinds the suite's hosts wrote and
// fails (false) when a host refused a record that does not validate
// against the StepRecord v1 schema.
func checkRecordAudit(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return true // no host wrote a record (a filtered run)
	}
	kinds := map[string]int{}
	var refused []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		status, rest, _ := strings.Cut(line, " ")
		tool, _, _ := strings.Cut(rest, " ")
		switch status {
		case "ok":
			kinds[tool]++
		case "refused":
			refused = append(refused, rest)
		}
	}
	n := 0
	for _, c := range kinds {
		n += c
	}
	fmt.Fprintf(os.Stderr, "e2e: %d step records of %d tools validated against StepRecord v1\n", n, len(kinds))
	for _, r := range refused {
		fmt.Fprintf(os.Stderr, "e2e: FAIL: a step record does not match StepRecord v1: %s\n", r)
	}
	return len(refused) == 0
}

func mustGo(dir string, args ...string) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		panic(fmt.Sprintf("go %v: %v", args, err))
	}
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// installPlugin copies a plugin binary into dir as mmcp-plugin-<name>.
func installPlugin(t testing.TB, src, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "mmcp-plugin-"+name)
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// workspace copies testdata/<name> to a temp dir and returns it.
func workspace(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(repoRoot(), "e2e", "testdata", name)
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Host is a host process driven over stdio by mcp-go's client.
type Host struct {
	t      testing.TB
	Cmd    *exec.Cmd
	Client *mcpclient.Client
	Stderr *testutil.Buffer

	mu       sync.Mutex
	bad      []string // stdout lines that are not JSON-RPC
	progress []mcp.JSONRPCNotification
	done     chan struct{}
}

// HostOptions configure startHost.
type HostOptions struct {
	Repo string
	Args []string
	Env  []string
	// Bin overrides the host binary's directory (plugins ship next to it).
	Bin string
}

// startHost starts bin/mmcp with the given workspace and initializes an MCP
// session over its stdio. Every stdout line is checked to be JSON-RPC.
func startHost(t testing.TB, o HostOptions) *Host {
	t.Helper()
	dir := o.Bin
	if dir == "" {
		dir = bin
	}
	args := append([]string{"--repo", o.Repo}, o.Args...)
	cmd := exec.Command(filepath.Join(dir, "mmcp"), args...)
	cmd.Env = append(os.Environ(), o.Env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{t: t, Cmd: cmd, Stderr: &testutil.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = h.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go h.checkStdout(stdout, pw)
	h.Client = mcpclient.NewClient(transport.NewIO(pr, stdin, io.NopCloser(strings.NewReader(""))))
	h.Client.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			h.mu.Lock()
			h.progress = append(h.progress, n)
			h.mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "mmcp-e2e", Version: "1"}
	if _, err := h.Client.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, h.Stderr.String())
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func (h *Host) checkStdout(r io.Reader, w *io.PipeWriter) {
	defer close(h.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var msg map[string]any
		if err := json.Unmarshal(line, &msg); err != nil || msg["jsonrpc"] != "2.0" {
			h.mu.Lock()
			h.bad = append(h.bad, string(line))
			h.mu.Unlock()
		}
		if _, err := w.Write(append(append([]byte{}, line...), '\n')); err != nil {
			break
		}
	}
	_ = w.Close()
}

// BadStdout returns stdout lines that were not JSON-RPC messages.
func (h *Host) BadStdout() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bad...)
}

// Progress returns the progress notifications received so far.
func (h *Host) Progress() []mcp.JSONRPCNotification {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]mcp.JSONRPCNotification(nil), h.progress...)
}

// Close closes stdin and waits for the host to exit.
func (h *Host) Close() {
	if h.Cmd.ProcessState != nil {
		return
	}
	_ = h.Client.Close()
	waitExit(h.t, h.Cmd, 30*time.Second)
	// A built-in plugin's describe mode and its start describe it alike:
	// a host lists from one and checks against the other.
	if log := h.Stderr.String(); strings.Contains(log, "describes itself otherwise") {
		h.t.Errorf("the host listed other tools than a plugin's start describes:\n%s", log)
	}
}

// waitExit waits for cmd, killing it after d.
func waitExit(t testing.TB, cmd *exec.Cmd, d time.Duration) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Errorf("host did not exit within %s; killing it", d)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// Envelope is the decoded tool envelope.
type Envelope struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
	Meta struct {
		Timestamp  string `json:"timestamp"`
		SessionID  string `json:"sessionId"`
		DurationMs int64  `json:"durationMs"`
	} `json:"meta"`
	Raw *mcp.CallToolResult `json:"-"`
}

// Call calls a tool and decodes its envelope.
func (h *Host) Call(name string, args any) Envelope {
	h.t.Helper()
	return h.CallCtx(context.Background(), name, args, nil)
}

// CallCtx calls a tool with a context and an optional progress token.
func (h *Host) CallCtx(ctx context.Context, name string, args any, progressToken any) Envelope {
	h.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	if progressToken != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: progressToken}
	}
	res, err := h.Client.CallTool(ctx, req)
	if err != nil {
		h.t.Fatalf("call %s: %v\nstderr tail:\n%s", name, err, tail(h.Stderr.String(), 30))
	}
	return decodeEnvelope(h.t, res)
}

func decodeEnvelope(t testing.TB, res *mcp.CallToolResult) Envelope {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("empty tool result")
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("first content is %T, want text", res.Content[0])
	}
	var env Envelope
	if err := json.Unmarshal([]byte(tc.Text), &env); err != nil {
		t.Fatalf("envelope is not JSON: %v: %s", err, tc.Text)
	}
	env.Raw = res
	return env
}

// Decode unmarshals the result into v.
func (e Envelope) Decode(t testing.TB, v any) {
	t.Helper()
	if !e.OK {
		t.Fatalf("call failed: %+v", e.Error)
	}
	if err := json.Unmarshal(e.Result, v); err != nil {
		t.Fatalf("decode result: %v: %s", err, e.Result)
	}
}

// must fails the test unless the envelope is ok.
func must(t testing.TB, e Envelope) Envelope {
	t.Helper()
	if !e.OK {
		t.Fatalf("call failed: %+v", e.Error)
	}
	return e
}

// wantCode fails the test unless the envelope failed with code.
func wantCode(t testing.TB, e Envelope, code string) {
	t.Helper()
	if e.OK {
		t.Fatalf("call succeeded (%s), want %s", e.Result, code)
	}
	if e.Error.Code != code {
		t.Fatalf("error %s (%s), want %s", e.Error.Code, e.Error.Message, code)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// pidsMatching lists pids whose command line contains every needle.
func pidsMatching(needles ...string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue // zombie
		}
		cmdline := strings.ReplaceAll(string(b), "\x00", " ")
		all := true
		for _, n := range needles {
			if !strings.Contains(cmdline, n) {
				all = false
				break
			}
		}
		if all {
			out = append(out, pid)
		}
	}
	return out
}

// eventually polls cond for up to d.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}
