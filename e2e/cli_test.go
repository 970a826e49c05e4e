package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/client/mmcp"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// cliResult is what one `mmcp` CLI run printed and returned.
type cliResult struct {
	Stdout, Stderr string
	Code           int
}

// mmcpCLI runs bin/mmcp --repo ws args... and waits for it.
func mmcpCLI(t testing.TB, ws string, args ...string) cliResult {
	t.Helper()
	return mmcpRun(t, nil, append([]string{"--repo", ws}, args...)...)
}

// envelopeOf decodes the envelope `mmcp call` printed.
func envelopeOf(t testing.TB, r cliResult) Envelope {
	t.Helper()
	var env Envelope
	if err := json.Unmarshal([]byte(r.Stdout), &env); err != nil {
		t.Fatalf("call output is not an envelope: %v\nstdout:\n%s\nstderr:\n%s", err, r.Stdout, tail(r.Stderr, 20))
	}
	return env
}

// serveState is <repo>/.mmcp/serve.json.
type serveState struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// serveProc is a running `mmcp serve --http`.
type serveProc struct {
	Cmd    *exec.Cmd
	State  serveState
	Stderr *testutil.Buffer
	ws     string
}

func servePath(ws string) string { return filepath.Join(ws, ".mmcp", "serve.json") }

// startServe starts `mmcp --repo ws --headless serve --http` and waits for
// its serve.json. The serve is stopped (SIGTERM) when the test ends.
func startServe(t testing.TB, ws string) *serveProc {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "mmcp"), "--repo", ws, "--headless", "serve", "--http")
	p := &serveProc{Cmd: cmd, Stderr: &testutil.Buffer{}, ws: ws}
	cmd.Stderr = p.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(t, syscall.SIGTERM) })
	ok := eventually(30*time.Second, func() bool {
		b, err := os.ReadFile(servePath(ws))
		if err != nil || json.Unmarshal(b, &p.State) != nil {
			return false
		}
		return p.State.PID == cmd.Process.Pid
	})
	if !ok {
		t.Fatalf("serve.json did not appear; stderr:\n%s", tail(p.Stderr.String(), 30))
	}
	return p
}

// Stop signals the serve and waits for it to exit.
func (p *serveProc) Stop(t testing.TB, sig syscall.Signal) {
	if p.Cmd.ProcessState != nil {
		return
	}
	_ = p.Cmd.Process.Signal(sig)
	waitExit(t, p.Cmd, 30*time.Second)
}

// connect opens a client handle on the serve (no session adapter).
func (p *serveProc) connect(t testing.TB) *client.Handle { return p.connectAs(t, "") }

// connectAs opens a client handle on the serve that names itself name
// (the Mmcp-Client header; "" for none): a client of its own, with a
// wallet session of its own.
func (p *serveProc) connectAs(t testing.TB, name string) *client.Handle {
	t.Helper()
	if name == "" {
		return p.connectWith(t, nil)
	}
	return p.connectWith(t, map[string]string{"Mmcp-Client": name})
}

// connectWith opens a client handle on the serve sending headers on each
// request.
func (p *serveProc) connectWith(t testing.TB, headers map[string]string) *client.Handle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := client.Options{URL: p.State.URL, Token: p.State.Token, Log: client.LoggerOptions{Writer: testWriter{t}}, Headers: headers}
	h, err := client.Connect(ctx, opts)
	if err != nil {
		t.Fatalf("connect to serve: %v", err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// descendants lists the live (non-zombie) descendants of pid.
func descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range testutil.LiveProcs() {
		children[p.PPid] = append(children[p.PPid], p.Pid)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// alive returns the pids of ps that still run (not zombies).
func alive(ps []int) []int {
	var out []int
	for _, p := range ps {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err == nil && !strings.Contains(string(b), ") Z ") {
			out = append(out, p)
		}
	}
	return out
}

// httpStatus posts an initialize request to url with the given headers.
func httpStatus(t testing.TB, url string, hdr map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// launchArgs are mm_launch arguments for a default session with Anvil and
// the fixture server on free ports.
func launchArgs(t testing.TB) map[string]any {
	return withFreePorts(t, map[string]any{"stateMode": "default"})
}

// handleLaunch launches a default session through h, with extra
// arguments merged in.
func handleLaunch(t testing.TB, h *client.Handle, extra ...map[string]any) {
	t.Helper()
	args := launchArgs(t)
	for _, e := range extra {
		maps.Copy(args, e)
	}
	if _, err := h.CallEnvelope(context.Background(), "mm_launch", args); err != nil {
		t.Fatalf("launch: %v", err)
	}
}

// TestCLISpawn: without a serve, call, tools and replay spawn a host for
// the command.
func TestCLISpawn(t *testing.T) {
	ws := walletWorkspace(t)
	t.Run("call", func(t *testing.T) {
		r := mmcpCLI(t, ws, "call", "mm_knowledge_sessions", "{}")
		if env := envelopeOf(t, r); r.Code != 0 || !env.OK {
			t.Fatalf("exit %d, envelope %+v\nstderr:\n%s", r.Code, env, r.Stderr)
		}
		// A spawned host has no session: the call fails, exit status 1.
		r = mmcpCLI(t, ws, "call", "mm_get_state")
		if r.Code != 1 {
			t.Fatalf("mm_get_state without a session: exit %d", r.Code)
		}
		wantCode(t, envelopeOf(t, r), "MM_NO_ACTIVE_SESSION")
		if r = mmcpCLI(t, ws, "call", "mm_get_state", "{not json"); r.Code != 2 {
			t.Fatalf("bad JSON: exit %d, stderr %s", r.Code, r.Stderr)
		}
		if _, err := os.Stat(servePath(ws)); err == nil {
			t.Fatal("a spawned call wrote serve.json")
		}
	})
	t.Run("tools", func(t *testing.T) {
		r := mmcpCLI(t, ws, "tools")
		if r.Code != 0 || !strings.Contains(r.Stdout, "mm_click\n") || !strings.Contains(r.Stdout, `"testId"`) {
			t.Fatalf("exit %d, stdout:\n%s", r.Code, r.Stdout)
		}
		r = mmcpCLI(t, ws, "tools", "--json")
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &tools); err != nil || r.Code != 0 {
			t.Fatalf("tools --json: exit %d, %v", r.Code, err)
		}
		found := false
		for _, tl := range tools {
			if tl.Name == "mm_launch" {
				found = strings.Contains(string(tl.InputSchema), "stateMode")
			}
		}
		if !found {
			t.Fatalf("mm_launch with its schema missing from tools --json")
		}
	})
	t.Run("replay stops at the first failure", func(t *testing.T) {
		seq := filepath.Join(t.TempDir(), "seq.jsonl")
		lines := `{"name":"mm_knowledge_sessions","arguments":{}}
{"name":"mm_knowledge_sessions","arguments":{},"_phase":"after","_ok":true}
{"name":"mm_get_state","arguments":{},"_phase":"before","_seq":2}
{"name":"mm_knowledge_sessions","arguments":{"limit":1}}
`
		if err := os.WriteFile(seq, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		r := mmcpCLI(t, ws, "replay", seq)
		if r.Code != 1 || !strings.Contains(r.Stdout, "replay: 2 calls, 1 ok, 1 failed") {
			t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
		}
		r = mmcpCLI(t, ws, "replay", seq, "--keep-going")
		if r.Code != 1 || !strings.Contains(r.Stdout, "replay: 3 calls, 2 ok, 1 failed") {
			t.Fatalf("--keep-going: exit %d, stdout:\n%s", r.Code, r.Stdout)
		}
	})
}

// TestCLIServeHTTP: one client launches a shared session over HTTP, `mmcp
// call` (another process) attaches and sees the same session; the server refuses
// requests without the token, from foreign origins and with a bad Host;
// a second serve refuses; stopping the serve leaves nothing behind.
func TestCLIServeHTTP(t *testing.T) {
	ws := walletWorkspace(t)
	p := startServe(t, ws)
	if st, err := os.Stat(servePath(ws)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("serve.json mode: %v %v", st.Mode(), err)
	}
	h := p.connect(t)
	handleLaunch(t, h, map[string]any{"shared": true})

	r := mmcpCLI(t, ws, "call", "mm_get_state", "{}")
	env := envelopeOf(t, r)
	var out struct{ State state }
	env.Decode(t, &out)
	if r.Code != 0 || out.State.CurrentScreen != "home" || !out.State.IsUnlocked {
		t.Fatalf("attached call: exit %d, state %+v", r.Code, out.State)
	}

	port := p.State.URL[strings.LastIndex(p.State.URL, ":")+1 : strings.LastIndex(p.State.URL, "/")]
	auth := "Bearer " + p.State.Token
	for _, c := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"token", map[string]string{"Authorization": auth}, http.StatusOK},
		{"no token", map[string]string{}, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"null origin", map[string]string{"Authorization": auth, "Origin": "null"}, http.StatusForbidden},
		{"loopback origin", map[string]string{"Authorization": auth, "Origin": "http://localhost:3000"}, http.StatusOK},
		{"rebinding host", map[string]string{"Authorization": auth, "Host": "evil.example:" + port}, http.StatusForbidden},
		{"localhost host", map[string]string{"Authorization": auth, "Host": "localhost:" + port}, http.StatusOK},
		{"wrong port", map[string]string{"Authorization": auth, "Host": "127.0.0.1:1"}, http.StatusForbidden},
	} {
		if got := httpStatus(t, p.State.URL, c.hdr); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}

	second := mmcpCLI(t, ws, "--headless", "serve", "--http")
	if second.Code != 1 || !strings.Contains(second.Stderr, "already running") || !strings.Contains(second.Stderr, p.State.URL) {
		t.Fatalf("second serve: exit %d, stderr:\n%s", second.Code, second.Stderr)
	}

	kids := descendants(p.Cmd.Process.Pid)
	if len(chromeFor(ws)) == 0 || len(kids) == 0 {
		t.Fatalf("no Chrome (%v) or plugins (%v) under the serve", chromeFor(ws), kids)
	}
	p.Stop(t, syscall.SIGTERM)
	if !eventually(15*time.Second, func() bool { return len(alive(kids)) == 0 && len(chromeFor(ws)) == 0 }) {
		t.Fatalf("left behind after SIGTERM: processes %v, Chrome %v", alive(kids), chromeFor(ws))
	}
	if _, err := os.Stat(servePath(ws)); !os.IsNotExist(err) {
		t.Fatalf("serve.json still there after SIGTERM: %v", err)
	}

	t.Run("SIGKILL", func(t *testing.T) {
		p := startServe(t, ws)
		h := p.connect(t)
		handleLaunch(t, h)
		kids := descendants(p.Cmd.Process.Pid)
		p.Stop(t, syscall.SIGKILL)
		if !eventually(15*time.Second, func() bool { return len(alive(kids)) == 0 && len(chromeFor(ws)) == 0 }) {
			t.Fatalf("left behind after SIGKILL: processes %v, Chrome %v", alive(kids), chromeFor(ws))
		}
		// The stale serve.json is ignored: call spawns, a new serve takes over.
		if _, err := os.Stat(servePath(ws)); err != nil {
			t.Fatalf("expected a stale serve.json after SIGKILL: %v", err)
		}
		if r := mmcpCLI(t, ws, "call", "mm_knowledge_sessions"); r.Code != 0 {
			t.Fatalf("call with a stale serve.json: exit %d\n%s", r.Code, r.Stderr)
		}
		p2 := startServe(t, ws)
		if r := mmcpCLI(t, ws, "call", "mm_knowledge_sessions"); r.Code != 0 {
			t.Fatalf("call on the new serve: exit %d\n%s", r.Code, r.Stderr)
		}
		p2.Stop(t, syscall.SIGTERM)
	})
}

// logOutcomes reads the (name, _ok) of the "after" lines of a call log.
func logOutcomes(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var l struct {
			Name  string `json:"name"`
			Phase string `json:"_phase"`
			OK    bool   `json:"_ok"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if l.Phase == "after" {
			out = append(out, fmt.Sprintf("%s:%v", l.Name, l.OK))
		}
	}
	return out
}

// TestCLIReplay: a flow of `mmcp call --log` on a serve session replays
// with `mmcp replay` on a fresh serve, to the same results.
func TestCLIReplay(t *testing.T) {
	ws := walletWorkspace(t)
	dir := t.TempDir()
	flowLog, replayLog := filepath.Join(dir, "flow.jsonl"), filepath.Join(dir, "replay.jsonl")
	flow := []struct {
		tool, args string
		ok         bool
	}{
		{"mm_launch", jsonOf(launchArgs(t)), true},
		{"mm_click", `{"testId":"global-menu-settings"}`, true},
		{"mm_wait_for", `{"testId":"settings-back"}`, true},
		{"mm_get_state", `{}`, true},
		{"mm_click", `{"testId":"no-such-thing","timeoutMs":300}`, false},
		{"mm_navigate", `{"screen":"home"}`, true},
		{"mm_cleanup", `{}`, true},
	}
	p := startServe(t, ws)
	for _, c := range flow {
		r := mmcpCLI(t, ws, "call", "--log", flowLog, c.tool, c.args)
		if (r.Code == 0) != c.ok {
			t.Fatalf("%s %s: exit %d\n%s", c.tool, c.args, r.Code, r.Stdout)
		}
		if c.tool == "mm_get_state" && !strings.Contains(r.Stdout, `"currentScreen": "settings"`) {
			t.Fatalf("flow get_state:\n%s", r.Stdout)
		}
	}
	p.Stop(t, syscall.SIGTERM)
	want := logOutcomes(t, flowLog)
	if len(want) != len(flow) {
		t.Fatalf("flow log has %d results, want %d", len(want), len(flow))
	}

	startServe(t, ws)
	r := mmcpCLI(t, ws, "replay", flowLog, "--keep-going", "--log", replayLog)
	if r.Code != 1 || !strings.Contains(r.Stdout, "replay: 7 calls, 6 ok, 1 failed") {
		t.Fatalf("replay: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, tail(r.Stderr, 20))
	}
	if got := logOutcomes(t, replayLog); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("replay results differ:\n got %v\nwant %v", got, want)
	}
	// Without --keep-going the replay stops at the failed click.
	r = mmcpCLI(t, ws, "replay", flowLog)
	if r.Code != 1 || !strings.Contains(r.Stdout, "replay: 5 calls, 4 ok, 1 failed") {
		t.Fatalf("replay without --keep-going: exit %d\n%s", r.Code, r.Stdout)
	}
	mmcpCLI(t, ws, "call", "mm_cleanup")
}

// TestGeneratedHandles: the committed typed handles call a spawned host,
// match the live registry of the host's own tools, and `mmcp gen` on an
// unchanged registry prints "No changes.".
func TestGeneratedHandles(t *testing.T) {
	ws := walletWorkspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := client.Options{
		Command: client.Command{Path: filepath.Join(bin, "mmcp"), Args: []string{"--repo", ws, "--headless", "--log-level", "warn"}},
		Log:     client.LoggerOptions{Writer: testWriter{t}},
	}
	h, err := mmcp.Open(ctx, opts)
	if err != nil {
		t.Fatalf("open (regenerate with `go generate ./client/mmcp` if the registry changed): %v", err)
	}
	defer h.Close(ctx)
	if have := mmcp.OwnHash(h.Client().Tools()); have != mmcp.RegistryHash {
		t.Fatalf("registry drift: live mm_* tools hash %s, generated %s: run `go generate ./client/mmcp`", have, mmcp.RegistryHash)
	}
	env, err := h.Root.KnowledgeSessions(ctx, mmcp.KnowledgeSessionsArgs{})
	if err != nil || !env.OK {
		t.Fatalf("KnowledgeSessions: %v %+v", err, env)
	}
	var sess struct{ Sessions []any }
	if err := env.Decode(&sess); err != nil || sess.Sessions == nil {
		t.Fatalf("decode sessions: %v (%s)", err, env.Result)
	}
	var se *sdk.Error
	if _, err := h.Root.GetState(ctx); !errors.As(err, &se) || se.Code != sdk.CodeNoActiveSession {
		t.Fatalf("GetState without a session: %v, want %s", err, sdk.CodeNoActiveSession)
	}

	bad := opts
	bad.ExpectedHash = "000000000000"
	if _, err := mmcp.Open(ctx, bad); !errors.Is(err, client.ErrRegistryDrift) {
		t.Fatalf("open with a wrong hash: %v, want drift", err)
	}

	t.Run("gen twice", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "tools_gen.go")
		r := mmcpCLI(t, ws, "gen", "--out", out, "--package", "mmcp")
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "Generated ") {
			t.Fatalf("gen: exit %d, %q\n%s", r.Code, r.Stdout, r.Stderr)
		}
		if r = mmcpCLI(t, ws, "gen", "--out", out, "--package", "mmcp"); r.Code != 0 || r.Stdout != "No changes.\n" {
			t.Fatalf("gen again: exit %d, %q", r.Code, r.Stdout)
		}
		// The committed file is what gen writes today.
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(filepath.Join(repoRoot(), "client", "mmcp", "tools_gen.go"))
		if dropGenerated(got) != dropGenerated(want) {
			t.Fatal("client/mmcp/tools_gen.go is stale: run `go generate ./client/mmcp`")
		}
	})
}

func dropGenerated(b []byte) string {
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "// Generated: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// BenchmarkCLICall times `mmcp call mm_knowledge_sessions` attached to a
// running serve and spawning a host per call (median per call).
func BenchmarkCLICall(b *testing.B) {
	ws := walletWorkspace(b)
	run := func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if r := mmcpCLI(b, ws, "call", "mm_knowledge_sessions"); r.Code != 0 {
				b.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms/median")
	}
	b.Run("spawn", run)
	b.Run("attach", func(b *testing.B) {
		p := startServe(b, ws)
		b.ResetTimer()
		run(b)
		b.StopTimer()
		p.Stop(b, syscall.SIGTERM)
	})
}
