package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// pidsIn lists the processes whose working directory is dir.
func pidsIn(dir string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !containsZombie(st) {
				out = append(out, pid)
			}
		}
	}
	return out
}

func containsZombie(stat []byte) bool {
	for i := 0; i+3 < len(stat); i++ {
		if stat[i] == ')' && stat[i+1] == ' ' && stat[i+2] == 'Z' && stat[i+3] == ' ' {
			return true
		}
	}
	return false
}

// TestBuildPluginKilledLeavesNoBuild: after kill -9 of the build plugin
// during a build (yarn -> sh -> node), no process of the build is left,
// and the host answers the build call.
func TestBuildPluginKilledLeavesNoBuild(t *testing.T) {
	ws := workspace(t, "build-slow")
	dir := hostDir(t, map[string]string{"build": filepath.Join(bin, "mmcp-plugin-build")})
	h := startHost(t, HostOptions{Repo: ws, Bin: dir})
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		req := mcp.CallToolRequest{}
		req.Params.Name = "mm_build"
		_, _ = h.Client.CallTool(context.Background(), req)
	}()
	const marker = "mmcp-slow-build-marker"
	plugin := filepath.Join(dir, "mmcp-plugin-build")
	if !eventually(20*time.Second, func() bool { return len(pidsMatching(marker, "setTimeout")) > 0 && len(pidsMatching(plugin)) > 0 }) {
		t.Fatalf("build did not start; stderr:\n%s", tail(h.Stderr.String(), 20))
	}
	if n := len(pidsIn(ws)); n < 3 {
		t.Logf("build processes in the workspace: %d", n)
	}
	for _, pid := range pidsMatching(plugin) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if !eventually(10*time.Second, func() bool { return len(pidsMatching(marker)) == 0 && len(pidsIn(ws)) == 0 }) {
		t.Fatalf("left behind after the plugin died: marker %v, in the workspace %v", pidsMatching(marker), pidsIn(ws))
	}
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("mm_build was not answered after its plugin died")
	}
}

// TestKilledHostLeftoversRemoved: the Chrome profile and the plugin socket
// directory of a host killed by SIGKILL are removed by the next host's
// start.
func TestKilledHostLeftoversRemoved(t *testing.T) {
	h, _ := walletHost(t)
	must(t, h.Call("mm_launch", launchArgs(t)))
	pid := h.Cmd.Process.Pid
	leftovers := func() []string {
		var out []string
		for _, p := range []string{"mmcp-chrome-", "mmcp-plugins-"} {
			m, _ := filepath.Glob(filepath.Join(os.TempDir(), p+strconv.Itoa(pid)+"-*"))
			out = append(out, m...)
		}
		return out
	}
	if n := len(leftovers()); n != 2 {
		t.Fatalf("host %d has %d of its profile and socket dirs: %v", pid, n, leftovers())
	}
	_ = h.Cmd.Process.Signal(syscall.SIGKILL)
	waitExit(t, h.Cmd, 20*time.Second)
	if len(leftovers()) == 0 {
		t.Fatal("nothing left behind by SIGKILL: the test shows nothing")
	}
	startHost(t, HostOptions{Repo: workspace(t, "no-deps")})
	if left := leftovers(); len(left) > 0 {
		t.Fatalf("left behind after the next host started: %v", left)
	}
}

// TestTempDirLeftClean: with its own TMPDIR, a host that launched a
// session (Chrome, Anvil, the plugins) leaves nothing there once the
// session is cleaned up and the host has exited; a host killed by SIGKILL
// leaves its directories, and the next host's start removes them.
func TestTempDirLeftClean(t *testing.T) {
	tmp, err := os.MkdirTemp("", "mmcp-e2e-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	ws := walletWorkspace(t)
	start := func() *Host {
		return startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}, Env: []string{"TMPDIR=" + tmp}})
	}
	h := start()
	launchFree(t, h, map[string]any{"stateMode": "default"})
	must(t, h.Call("mm_screenshot", map[string]any{"name": "tmpdir"}))
	must(t, h.Call("mm_cleanup", map[string]any{}))
	h.Close()
	if left := tempLeftovers(tmp); len(left) > 0 {
		t.Fatalf("left in TMPDIR after cleanup and exit: %v", left)
	}

	h = start()
	launchFree(t, h, map[string]any{"stateMode": "default"})
	_ = h.Cmd.Process.Signal(syscall.SIGKILL)
	waitExit(t, h.Cmd, 20*time.Second)
	if len(tempLeftovers(tmp)) == 0 {
		t.Fatal("nothing left behind by SIGKILL: the test shows nothing")
	}
	start().Close()
	if left := tempLeftovers(tmp); len(left) > 0 {
		t.Fatalf("left in TMPDIR by a killed host after the next host ran: %v", left)
	}
}

// tempLeftovers lists the entries of dir, except two caches of a fixed
// name that every later run reuses (they never accumulate): rod's leakless
// binary, and yarn's v8-compile-cache-<uid> (the session record asks
// `yarn --version`).
func tempLeftovers(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "leakless-") && !strings.HasPrefix(e.Name(), "v8-compile-cache-") {
			out = append(out, e.Name())
		}
	}
	return out
}
