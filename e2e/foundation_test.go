package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// hostDir makes a directory holding a copy of the host binary and the given
// plugins (name -> source binary), so the "host directory" discovery rule
// sees exactly those.
func hostDir(t *testing.T, plugins map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(bin, "mmcp"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mmcp"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range plugins {
		installPlugin(t, src, dir, name)
	}
	return dir
}

func TestInitializeListCall(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "build-ok")
	h := startHost(t, HostOptions{Repo: ws, Env: []string{"NOISE=3"}})
	res, err := h.Client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range res.Tools {
		names[tl.Name] = true
	}
	if !names["mm_build"] {
		t.Fatalf("mm_build not listed: %v", names)
	}
	env := must(t, h.Call("mm_build", map[string]any{}))
	var out struct{ BuildType, ExtensionPathResolved string }
	env.Decode(t, &out)
	if out.BuildType != "build:test" || out.ExtensionPathResolved != filepath.Join(ws, "dist", "chrome") {
		t.Fatalf("result %+v", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "dist", "chrome", "manifest.json")); err != nil {
		t.Fatal("the build did not run:", err)
	}
	if env.Meta.Timestamp == "" {
		t.Fatal("meta.timestamp missing")
	}
}

func TestStdoutPurity(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "build-ok")
	pp := t.TempDir()
	installPlugin(t, filepath.Join(testPlugins, "testplugin"), pp, "slow")
	h := startHost(t, HostOptions{Repo: ws, Env: []string{"NOISE=3000", "MMCP_PLUGIN_PATH=" + pp}, Args: []string{"--log-level", "debug"}})
	must(t, h.CallCtx(context.Background(), "mm_build", map[string]any{"force": true}, "tok-1"))
	must(t, h.Call("slow_sleep", map[string]any{"ms": 1, "lines": 2000}))
	if len(h.Progress()) < 100 {
		t.Fatalf("expected build progress notifications, got %d", len(h.Progress()))
	}
	h.Close()
	<-h.done
	if bad := h.BadStdout(); len(bad) > 0 {
		t.Fatalf("%d non-JSON-RPC lines on stdout, first: %q", len(bad), bad[0])
	}
	if !strings.Contains(h.Stderr.String(), "build line 2999") {
		t.Fatal("build output did not reach the log on stderr")
	}
}

func TestBuildOutcomes(t *testing.T) {
	t.Parallel()
	t.Run("fails with tail", func(t *testing.T) {
		t.Parallel()
		h := startHost(t, HostOptions{Repo: workspace(t, "build-fail")})
		env := h.Call("mm_build", map[string]any{})
		wantCode(t, env, "MM_BUILD_FAILED")
		if tl, _ := env.Error.Details["tail"].(string); !strings.Contains(tl, "cannot resolve module foo") {
			t.Fatalf("tail of output missing: %+v", env.Error.Details)
		}
	})
	t.Run("no node_modules", func(t *testing.T) {
		t.Parallel()
		h := startHost(t, HostOptions{Repo: workspace(t, "no-deps")})
		wantCode(t, h.Call("mm_build", map[string]any{}), "MM_DEPENDENCIES_MISSING")
	})
	t.Run("no yarn", func(t *testing.T) {
		t.Parallel()
		h := startHost(t, HostOptions{Repo: workspace(t, "build-ok"), Env: []string{"PATH=/nonexistent"}})
		wantCode(t, h.Call("mm_build", map[string]any{}), "MM_DEPENDENCIES_MISSING")
	})
	t.Run("skips existing build unless forced", func(t *testing.T) {
		t.Parallel()
		ws := workspace(t, "build-ok")
		h := startHost(t, HostOptions{Repo: ws, Env: []string{"NOISE=1"}})
		must(t, h.Call("mm_build", map[string]any{}))
		mf := filepath.Join(ws, "dist", "chrome", "manifest.json")
		if err := os.WriteFile(mf, []byte(`{"marker":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
		must(t, h.Call("mm_build", map[string]any{}))
		if b, _ := os.ReadFile(mf); !strings.Contains(string(b), "marker") {
			t.Fatal("an existing build was rebuilt without force")
		}
		must(t, h.Call("mm_build", map[string]any{"force": true}))
		if b, _ := os.ReadFile(mf); strings.Contains(string(b), "marker") {
			t.Fatal("force did not rebuild")
		}
	})
	t.Run("capability missing", func(t *testing.T) {
		t.Parallel()
		dir := hostDir(t, nil)
		h := startHost(t, HostOptions{Repo: workspace(t, "build-ok"), Bin: dir})
		env := h.Call("mm_build", map[string]any{})
		wantCode(t, env, "MM_CAPABILITY_MISSING")
		if !strings.Contains(env.Error.Message, "mmcp-plugin-build") {
			t.Fatalf("message does not say what to install: %s", env.Error.Message)
		}
	})
}

// TestBadInputEveryTool sends a missing required field, a wrong type and an
// extra property to every registered tool.
func TestBadInputEveryTool(t *testing.T) {
	t.Parallel()
	h := startHost(t, HostOptions{Repo: workspace(t, "build-ok")})
	res, err := h.Client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		b, _ := json.Marshal(tl.InputSchema)
		if tl.RawInputSchema != nil {
			b = tl.RawInputSchema
		}
		_ = json.Unmarshal(b, &schema)
		env := h.Call(tl.Name, map[string]any{"definitelyNotAField": 1})
		wantCode(t, env, "MM_INVALID_INPUT")
		if env.Error.Details["field"] == nil {
			t.Errorf("%s: details do not name the field: %+v", tl.Name, env.Error.Details)
		}
		if len(schema.Required) > 0 {
			env := h.Call(tl.Name, map[string]any{})
			wantCode(t, env, "MM_INVALID_INPUT")
			if env.Error.Details["field"] != schema.Required[0] {
				t.Errorf("%s: missing %s not named: %+v", tl.Name, schema.Required[0], env.Error.Details)
			}
		}
		for name, p := range schema.Properties {
			var wrong any = "not-the-right-type"
			if p["type"] == "string" {
				wrong = 12345
			}
			if p["type"] == nil {
				continue
			}
			env := h.Call(tl.Name, map[string]any{name: wrong})
			wantCode(t, env, "MM_INVALID_INPUT")
			break
		}
	}
}

func pluginsJSON(t *testing.T, dir, ws string, env ...string) map[string]map[string]any {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "mmcp"), "--repo", ws, "plugins", "--json")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mmcp plugins: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("plugins --json: %v: %s", err, out)
	}
	m := map[string]map[string]any{}
	for _, r := range rows {
		m[r["name"].(string)] = r
	}
	return m
}

func TestDiscoveryOrder(t *testing.T) {
	t.Parallel()
	hello := filepath.Join(bin, "examples", "mmcp-plugin-hello")
	test := filepath.Join(testPlugins, "testplugin")
	dir := hostDir(t, map[string]string{"hello": hello, "build": filepath.Join(bin, "mmcp-plugin-build")})
	ws := workspace(t, "build-ok")
	xdg := t.TempDir()
	// Workspace plugins run only with consent (TestWorkspacePluginTrust).
	env := []string{"XDG_CONFIG_HOME=" + xdg, "HOME=" + xdg, "MMCP_TRUST_WORKSPACE_PLUGINS=1"}
	source := func(extra ...string) string {
		return pluginsJSON(t, dir, ws, append(env, extra...)...)["hello"]["source"].(string)
	}
	if s := source(); s != "host directory" {
		t.Fatalf("rule 5: source %q", s)
	}
	installPlugin(t, hello, filepath.Join(xdg, "mmcp", "plugins"), "hello")
	if s := source(); s != "user config" {
		t.Fatalf("rule 4b: source %q", s)
	}
	installPlugin(t, hello, filepath.Join(ws, ".mmcp", "plugins"), "hello")
	if s := source(); s != "workspace" {
		t.Fatalf("rule 4a: source %q", s)
	}
	pp := t.TempDir()
	installPlugin(t, hello, pp, "hello")
	if s := source("MMCP_PLUGIN_PATH=" + pp); s != "MMCP_PLUGIN_PATH" {
		t.Fatalf("rule 3: source %q", s)
	}
	cfgBin := installPlugin(t, hello, filepath.Join(ws, "tools"), "hello")
	cfg := `{"plugins":{"hello":{"path":"` + cfgBin + `"}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := source("MMCP_PLUGIN_PATH=" + pp); s != "config" {
		t.Fatalf("rule 2: source %q", s)
	}
	// A wrong sha256 pin: the plugin fails with a reason, the others serve.
	cfg = `{"plugins":{"hello":{"path":"` + cfgBin + `","sha256":"` + strings.Repeat("ab", 32) + `"}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mmcp", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := pluginsJSON(t, dir, ws, env...)
	if e, _ := rows["hello"]["error"].(string); !strings.Contains(e, "checksum") {
		t.Fatalf("pinned plugin with a wrong checksum: %+v", rows["hello"])
	}
	if rows["build"]["error"] != nil {
		t.Fatalf("build plugin should still serve: %+v", rows["build"])
	}
	// Bad schema, failing start and a colliding tool name.
	_ = os.Remove(filepath.Join(ws, ".mmcp", "config.json"))
	bad := t.TempDir()
	installPlugin(t, test, bad, "badschema")
	installPlugin(t, test, bad, "crash")
	installPlugin(t, test, bad, "slow")
	installPlugin(t, test, bad, "mm")
	rows = pluginsJSON(t, dir, ws, append(env, "MMCP_PLUGIN_PATH="+bad)...)
	if rj := jsonOf(rows["mm"]["rejectedTools"]); !strings.Contains(rj, "mm_click") || strings.Contains(rj, "mm_extra") {
		t.Fatalf("a tool clashing with mm_click must be rejected, the other kept: %+v", rows["mm"])
	}
	if e, _ := rows["badschema"]["error"].(string); !strings.Contains(e, "schema") {
		t.Fatalf("badschema: %+v", rows["badschema"])
	}
	if e, _ := rows["crash"]["error"].(string); e == "" || !strings.Contains(e, "giving up before the handshake") {
		t.Fatalf("crash: %+v", rows["crash"])
	}
	if rows["slow"]["error"] != nil || rows["hello"]["error"] != nil {
		t.Fatalf("healthy plugins must still serve: %+v %+v", rows["slow"], rows["hello"])
	}
}

func TestClashingToolRejected(t *testing.T) {
	t.Parallel()
	pp := t.TempDir()
	installPlugin(t, filepath.Join(testPlugins, "testplugin"), pp, "mm")
	h := startHost(t, HostOptions{Repo: workspace(t, "build-ok"), Env: []string{"MMCP_PLUGIN_PATH=" + pp}})
	// mm_click is still the host's: it validates its own schema.
	wantCode(t, h.Call("mm_click", map[string]any{}), "MM_INVALID_INPUT")
	var out struct{ Pid int }
	must(t, h.Call("mm_extra", map[string]any{})).Decode(t, &out)
	if out.Pid == 0 {
		t.Fatal("the non-clashing tool did not reach the plugin")
	}
}

func TestExamplePluginThroughHost(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "build-ok")
	installPlugin(t, filepath.Join(bin, "examples", "mmcp-plugin-hello"), filepath.Join(ws, ".mmcp", "plugins"), "hello")
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--trust-workspace-plugins"}})
	var out struct{ Greeting string }
	must(t, h.Call("hello_greet", map[string]any{"name": "agent", "shout": true})).Decode(t, &out)
	if out.Greeting != strings.ToUpper("hello, agent (from "+ws+")") {
		t.Fatalf("greeting %q", out.Greeting)
	}
	wantCode(t, h.Call("hello_greet", map[string]any{}), "MM_INVALID_INPUT")
}

func TestPluginStandaloneModes(t *testing.T) {
	t.Parallel()
	hello := filepath.Join(bin, "examples", "mmcp-plugin-hello")
	out, err := exec.Command(hello, "describe").Output()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Name         string
		Capabilities []string
		Tools        []struct{ Name string }
	}
	if err := json.Unmarshal(out, &d); err != nil || d.Name != "hello" || len(d.Tools) != 1 || d.Tools[0].Name != "greet" {
		t.Fatalf("describe: %v %s", err, out)
	}
	cmd := exec.Command(hello, "call", "greet", `{"name":"x"}`)
	cmd.Env = append(os.Environ(), "MMCP_REPO=/tmp")
	out, err = cmd.Output()
	if err != nil || !strings.Contains(string(out), `"greeting": "hello, x (from /tmp)"`) {
		t.Fatalf("call: %v %s", err, out)
	}
	out, err = exec.Command(hello, "call", "nope", `{}`).Output()
	if err == nil || !strings.Contains(string(out), "MM_INVALID_INPUT") {
		t.Fatalf("call of an unknown tool: %v %s", err, out)
	}
}

func TestDebugReattach(t *testing.T) {
	t.Parallel()
	hello := filepath.Join(bin, "examples", "mmcp-plugin-hello")
	dbg := exec.Command(hello, "-debug")
	stdout, _ := dbg.StdoutPipe()
	if err := dbg.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dbg.Process.Kill(); _ = dbg.Wait() }()
	buf := make([]byte, 4096)
	n, err := stdout.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(buf[:n]))
	if !strings.HasPrefix(line, "MMCP_REATTACH_PLUGINS='") {
		t.Fatalf("debug output %q", line)
	}
	val := strings.TrimSuffix(strings.TrimPrefix(line, "MMCP_REATTACH_PLUGINS='"), "'")
	dir := hostDir(t, nil)
	h := startHost(t, HostOptions{Repo: workspace(t, "build-ok"), Bin: dir, Env: []string{"MMCP_REATTACH_PLUGINS=" + val}})
	var out struct{ Greeting string }
	must(t, h.Call("hello_greet", map[string]any{"name": "dbg"})).Decode(t, &out)
	if !strings.HasPrefix(out.Greeting, "hello, dbg") {
		t.Fatalf("greeting %q", out.Greeting)
	}
	h.Close()
	// The host never kills a reattached plugin: it has exited, and the
	// plugin still runs.
	if err := dbg.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatal("the host killed the reattached plugin")
	}
}

func TestPluginCrashAndRelaunch(t *testing.T) {
	t.Parallel()
	pp := t.TempDir()
	installPlugin(t, filepath.Join(testPlugins, "testplugin"), pp, "slow")
	h := startHost(t, HostOptions{Repo: workspace(t, "build-ok"), Env: []string{"MMCP_PLUGIN_PATH=" + pp}})
	var first struct{ Pid int }
	must(t, h.Call("slow_pid", map[string]any{})).Decode(t, &first)
	done := make(chan Envelope, 1)
	go func() { done <- h.Call("slow_sleep", map[string]any{"ms": 20000, "lines": 3}) }()
	// The plugin logs its lines, then sleeps: the call is in flight.
	if !eventually(10*time.Second, func() bool { return strings.Contains(h.Stderr.String(), "line 2 of noisy plugin output") }) {
		t.Fatalf("the plugin never logged its lines; host stderr:\n%s", tail(h.Stderr.String(), 20))
	}
	if err := syscall.Kill(first.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case env := <-done:
		wantCode(t, env, "MM_PLUGIN_CRASHED")
		if tl, _ := env.Error.Details["stderrTail"].(string); !strings.Contains(tl, "stderr line 2") {
			t.Errorf("stderr tail missing: %+v", env.Error.Details)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end after the plugin was killed")
	}
	var second struct{ Pid int }
	must(t, h.Call("slow_pid", map[string]any{})).Decode(t, &second)
	if second.Pid == first.Pid || second.Pid == 0 {
		t.Fatalf("plugin not relaunched: %d -> %d", first.Pid, second.Pid)
	}
}

func TestNoOrphansAfterHostExit(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			ws := workspace(t, "build-slow")
			dir := hostDir(t, map[string]string{"build": filepath.Join(bin, "mmcp-plugin-build")})
			h := startHost(t, HostOptions{Repo: ws, Bin: dir})
			go func() {
				req := mcp.CallToolRequest{}
				req.Params.Name = "mm_build"
				_, _ = h.Client.CallTool(context.Background(), req)
			}()
			marker := "mmcp-slow-build-marker"
			if !eventually(20*time.Second, func() bool { return len(pidsMatching(marker, "setTimeout")) > 0 && len(pidsMatching(dir)) > 1 }) {
				t.Fatalf("build did not start; stderr:\n%s", tail(h.Stderr.String(), 20))
			}
			_ = h.Cmd.Process.Signal(sig)
			waitExit(t, h.Cmd, 20*time.Second)
			if !eventually(10*time.Second, func() bool { return len(pidsMatching(dir)) == 0 && len(pidsMatching(ws)) == 0 }) {
				t.Fatalf("left behind: plugins %v, build %v", pidsMatching(dir), pidsMatching(ws))
			}
			if pids := pidsMatching(marker, ws); len(pids) > 0 {
				t.Fatalf("build child survived: %v", pids)
			}
		})
	}
}
