package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func exe(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWorkspacePluginsNeedConsent: a workspace's plugins (.mmcp/plugins,
// config paths) are refused until pinned or trusted, and never shadow a
// trusted plugin of the same name; a config path outside the workspace is
// refused even when trusted.
func TestWorkspacePluginsNeedConsent(t *testing.T) {
	ws, hostDir := t.TempDir(), t.TempDir()
	exe(t, filepath.Join(ws, ".mmcp", "plugins", "mmcp-plugin-build"))
	exe(t, filepath.Join(ws, ".mmcp", "plugins", "mmcp-plugin-hello"))
	exe(t, filepath.Join(ws, "tools", "mmcp-plugin-mine"))
	outside := exe(t, filepath.Join(t.TempDir(), "mmcp-plugin-far"))
	exe(t, filepath.Join(hostDir, "mmcp-plugin-build"))
	cfg := map[string]ConfigEntry{"mine": {Path: "tools/mmcp-plugin-mine"}, "far": {Path: outside, SHA256: "ab"}}
	byName := func(trust bool, cfg map[string]ConfigEntry) map[string][]Spec {
		out := map[string][]Spec{}
		for _, s := range Discover(Sources{Config: cfg, Workspace: ws, ExeDir: hostDir, TrustWorkspace: trust}, hclog.NewNullLogger()) {
			out[s.Name] = append(out[s.Name], s)
		}
		return out
	}
	got := byName(false, cfg)
	for _, n := range []string{"hello", "mine"} {
		if len(got[n]) != 1 || !strings.Contains(got[n][0].Refused, "untrusted") || !strings.Contains(got[n][0].Refused, "--trust-workspace-plugins") {
			t.Errorf("%s untrusted: %+v", n, got[n])
		}
	}
	// The untrusted workspace build does not shadow the host's.
	if b := got["build"]; len(b) != 2 || b[0].Refused == "" || b[1].Refused != "" || b[1].Source != "host directory" {
		t.Errorf("build: %+v", b)
	}
	if f := got["far"]; len(f) != 1 || !strings.Contains(f[0].Refused, "outside the workspace") {
		t.Errorf("far: %+v", f)
	}
	// Pinned: runs (go-plugin checks the checksum at start).
	cfg["hello"] = ConfigEntry{SHA256: "cd"}
	cfg["mine"] = ConfigEntry{Path: "tools/mmcp-plugin-mine", SHA256: "ef"}
	got = byName(false, cfg)
	if h := got["hello"]; len(h) != 1 || h[0].Refused != "" || h[0].SHA256 != "cd" || h[0].Source != "workspace" {
		t.Errorf("pinned hello: %+v", h)
	}
	if m := got["mine"]; len(m) != 1 || m[0].Refused != "" {
		t.Errorf("pinned mine: %+v", m)
	}
	// Trusted: runs, and shadows; outside stays refused.
	got = byName(true, map[string]ConfigEntry{"far": {Path: outside}})
	if b := got["build"]; len(b) != 1 || b[0].Source != "workspace" || b[0].Refused != "" {
		t.Errorf("trusted build: %+v", b)
	}
	if f := got["far"]; len(f) != 1 || f[0].Refused == "" {
		t.Errorf("trusted far: %+v", f)
	}
}
