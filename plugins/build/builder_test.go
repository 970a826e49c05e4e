package build

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// lines records the log lines a build streams.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) Progress(float64, float64, string) {}
func (l *lines) Log(_, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, msg)
}

// fakeWorkspace is a workspace with node_modules and an executable build
// script bin/build.sh with the given body; the plugin is configured to
// run it.
func fakeWorkspace(t *testing.T, script string, settings map[string]any) (*Plugin, string) {
	t.Helper()
	ws := t.TempDir()
	for _, d := range []string{"node_modules", "bin"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sh := filepath.Join(ws, "bin", "build.sh")
	if err := os.WriteFile(sh, []byte("#!/bin/sh\nset -e\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["command"]; !ok {
		settings["command"] = sh
	}
	return configured(t, ws, settings), ws
}

// configured is a build plugin configured with workspace ws and settings,
// stopped when the test ends.
func configured(t *testing.T, ws string, settings map[string]any) *Plugin {
	t.Helper()
	raw, _ := json.Marshal(settings)
	p := New(nil)
	if err := p.Configure(context.Background(), sdk.Config{Workspace: ws, Settings: raw}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(context.Background()) })
	return p
}

func code(err error) string {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestBuildWritesExtensionAndStreamsOutput(t *testing.T) {
	p, ws := fakeWorkspace(t, `echo compiling; mkdir -p dist/chrome; echo '{}' > dist/chrome/manifest.json; echo done`, nil)
	ev := &lines{}
	res, err := p.Build(context.Background(), sdk.BuildRequest{}, ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped || res.BuildType != "build:test" || res.ExtensionPath != filepath.Join(ws, "dist", "chrome") {
		t.Fatalf("result %+v", res)
	}
	if strings.Join(ev.got, ",") != "compiling,done" {
		t.Fatalf("streamed %q", ev.got)
	}
	if !p.isBuilt() {
		t.Fatal("IsBuilt false after a build")
	}
	// An existing build is kept unless forced.
	res, err = p.Build(context.Background(), sdk.BuildRequest{}, sdk.NopEvents{})
	if err != nil || !res.Skipped {
		t.Fatalf("second build: %+v, %v", res, err)
	}
	res, err = p.Build(context.Background(), sdk.BuildRequest{Force: true}, sdk.NopEvents{})
	if err != nil || res.Skipped {
		t.Fatalf("forced build: %+v, %v", res, err)
	}
}

func TestBuildFailures(t *testing.T) {
	t.Run("command fails", func(t *testing.T) {
		p, _ := fakeWorkspace(t, `echo "error TS2304: Cannot find name 'x'" >&2; exit 3`, nil)
		_, err := p.Build(context.Background(), sdk.BuildRequest{}, sdk.NopEvents{})
		if code(err) != sdk.CodeBuildFailed {
			t.Fatalf("err %v", err)
		}
		var e *sdk.Error
		errors.As(err, &e)
		if tail, _ := e.Details["tail"].(string); !strings.Contains(tail, "TS2304") {
			t.Fatalf("tail %q does not carry the build's error", tail)
		}
	})
	t.Run("succeeds without a manifest", func(t *testing.T) {
		p, _ := fakeWorkspace(t, `echo ok`, nil)
		_, err := p.Build(context.Background(), sdk.BuildRequest{}, sdk.NopEvents{})
		if code(err) != sdk.CodeBuildFailed || !strings.Contains(err.Error(), "no manifest.json") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("no node_modules", func(t *testing.T) {
		p, ws := fakeWorkspace(t, `exit 0`, nil)
		if err := os.RemoveAll(filepath.Join(ws, "node_modules")); err != nil {
			t.Fatal(err)
		}
		_, err := p.Build(context.Background(), sdk.BuildRequest{}, sdk.NopEvents{})
		if code(err) != sdk.CodeDependenciesMissing || !strings.Contains(err.Error(), "yarn install") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("command not on PATH", func(t *testing.T) {
		p, _ := fakeWorkspace(t, `exit 0`, map[string]any{"command": "no-such-build-tool build"})
		_, err := p.Build(context.Background(), sdk.BuildRequest{}, sdk.NopEvents{})
		if code(err) != sdk.CodeDependenciesMissing || !strings.Contains(err.Error(), "no-such-build-tool") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("timeout kills the build", func(t *testing.T) {
		p, _ := fakeWorkspace(t, `echo started; exec sleep 60`, map[string]any{"timeoutMs": 300})
		_, err := p.Build(context.Background(), sdk.BuildRequest{}, sdk.NopEvents{})
		if code(err) != sdk.CodeBuildFailed || !strings.Contains(err.Error(), "timed out after 300 ms") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		p, _ := fakeWorkspace(t, `echo started; exec sleep 60`, nil)
		ctx, cancel := context.WithCancel(context.Background())
		ev := &cancelOnLine{cancel: cancel}
		_, err := p.Build(ctx, sdk.BuildRequest{}, ev)
		if code(err) != sdk.CodeCancelled {
			t.Fatalf("err %v", err)
		}
	})
}

// cancelOnLine cancels the build when it prints its first line.
type cancelOnLine struct {
	sdk.NopEvents
	cancel context.CancelFunc
}

func (c *cancelOnLine) Log(string, string) { c.cancel() }

func TestConfigureRefusesUnknownSettings(t *testing.T) {
	p := New(nil)
	err := p.Configure(context.Background(), sdk.Config{Workspace: t.TempDir(), Settings: json.RawMessage(`{"comand": "yarn build"}`)})
	if code(err) != sdk.CodeInvalidConfig {
		t.Fatalf("err %v", err)
	}
}

func TestExtensionPathSetting(t *testing.T) {
	p, ws := fakeWorkspace(t, `exit 0`, map[string]any{"extensionPath": "build/ext"})
	if got := p.extPath(); got != filepath.Join(ws, "build", "ext") {
		t.Fatalf("relative: %s", got)
	}
	p, _ = fakeWorkspace(t, `exit 0`, map[string]any{"extensionPath": "/abs/ext"})
	if got := p.extPath(); got != "/abs/ext" {
		t.Fatalf("absolute: %s", got)
	}
}
