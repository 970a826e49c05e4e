package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// startCached starts a manager over the fake chain in exeDir with the
// manifest cache at cache, in a new workspace.
func startCached(t *testing.T, exeDir, cache string) *Manager {
	t.Helper()
	return startWith(t, exeDir, cache, nil)
}

// startLogged is startCached with the manager's warnings (and worse) in
// the buffer it returns.
func startLogged(t *testing.T, exeDir, cache string) (*Manager, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	return startWith(t, exeDir, cache, hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Warn})), logs
}

func startWith(t *testing.T, exeDir, cache string, log hclog.Logger) *Manager {
	t.Helper()
	m := New(Config{ExeDir: exeDir, ManifestCache: cache, Workspace: t.TempDir()}, log)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m
}

// warmCache is a manifest cache that a first host over the fakes in
// exeDir filled (and stopped).
func warmCache(t *testing.T, exeDir string) string {
	t.Helper()
	cache := filepath.Join(t.TempDir(), ManifestFile)
	first := startCached(t, exeDir, cache)
	first.Started()
	first.Shutdown(context.Background())
	return cache
}

// TestManifestCacheStartsPluginsBehind: a plugin described by the cache
// (by a host started in another workspace) is listed at once, with its tools and capabilities, while it is still
// starting (its Configure blocks here until the test lets it go); its
// first call waits for that start and answers.
func TestManifestCacheStartsPluginsBehind(t *testing.T) {
	dir := installFakes(t, "fakechain")
	cache := filepath.Join(t.TempDir(), "cache", ManifestFile)
	first := startCached(t, dir, cache)
	first.Started()
	if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache after the first start: %v %v", fi, err)
	}
	first.Shutdown(context.Background())

	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envGateConfigure, gate)
	m := startCached(t, dir, cache) // returns while Configure blocks
	p := m.ByCapability(sdk.CapChain)
	if p == nil || len(p.Desc.Tools) != 1 || p.Desc.Tools[0].Name != "pid" {
		t.Fatalf("cached description %+v", p)
	}
	answered := make(chan error, 1)
	go func() {
		answered <- m.Use(context.Background(), sdk.CapChain, func(c *pluginhost.Conn) error {
			_, err := c.Chain().ChainStatus(context.Background(), sdk.ChainStatusRequest{})
			return err
		})
	}()
	if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil { // lets Configure go on
		t.Fatal(err)
	}
	if err := <-answered; err != nil {
		t.Fatalf("first call after the start behind: %v", err)
	}
	if st, _ := p.Health(); st != "running" {
		t.Fatalf("health %s", st)
	}
}

// TestManifestCacheFailedStart: a cached plugin whose start fails behind
// Start answers its calls with that failure (MM_PLUGIN_CRASHED, naming
// the cause), and reports it.
func TestManifestCacheFailedStart(t *testing.T) {
	dir := installFakes(t, "fakechain")
	cache := warmCache(t, dir)

	t.Setenv(envFailConfigure, "1")
	m := startCached(t, dir, cache)
	err := m.Use(context.Background(), sdk.CapChain, func(*pluginhost.Conn) error { return nil })
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != sdk.CodePluginCrashed || !strings.Contains(se.Message, "configure refused") {
		t.Fatalf("call of a plugin that failed to start: %v", err)
	}
	p := m.ByCapability(sdk.CapChain)
	if p.Failure() == nil {
		t.Fatal("Failure() is nil")
	}
	if st, _ := p.Health(); st != "failed" {
		t.Fatalf("health %s", st)
	}
}

// TestManifestKey: the entry is the binary's and its settings', whatever
// the workspace (a plugin is described before it is configured); a change
// of the binary or the settings is a miss.
func TestManifestKey(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mmcp-plugin-x")
	if err := os.WriteFile(bin, []byte("a"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := loadManifests(filepath.Join(t.TempDir(), ManifestFile))
	s := Spec{Name: "x", Path: bin, Settings: []byte(`{"port":1}`)}
	d := pluginhost.Description{Info: sdk.Info{Name: "x", Version: "1"}}
	c.put(s, d)
	if _, ok := c.get(s); !ok {
		t.Fatal("no hit for the same binary and settings")
	}
	s2 := s
	s2.Settings = []byte(`{"port":2}`)
	if _, ok := c.get(s2); ok {
		t.Fatal("hit with other settings")
	}
	c.put(s2, d)
	if _, ok := c.get(s); !ok {
		t.Fatal("the entry of other settings replaced this one: two workspaces would take turns starting cold")
	}
	if err := os.WriteFile(bin, []byte("ab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(s); ok {
		t.Fatal("hit after the binary changed")
	}
	if _, ok := c.get(Spec{Name: "x", Reattach: true}); ok {
		t.Fatal("a reattached plugin is never cached")
	}
	// Saved and read back by the next host; bounded.
	for i := 0; i < manifestLimit+5; i++ {
		c.put(Spec{Name: "x", Path: bin, Settings: []byte{byte(i)}}, d)
	}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	if n := len(loadManifests(c.path).entries); n != manifestLimit {
		t.Fatalf("%d entries saved, want %d", n, manifestLimit)
	}
}
