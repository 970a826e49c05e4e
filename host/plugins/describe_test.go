package plugins

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// TestDescribeRunListsAPluginBeforeItStarts: a plugin no host has
// started yet is listed from its describe run, and its process starts
// only once released (here by its first call), not within Start; its
// start describes it as the run did, and is cached for the next host.
func TestDescribeRunListsAPluginBeforeItStarts(t *testing.T) {
	dir := installFakes(t, "fakechain")
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv(envRunLog, runs)
	cache := filepath.Join(t.TempDir(), ManifestFile)
	m, logs := startLogged(t, dir, cache)
	if got := runLog(t, runs); got != "describe" {
		t.Fatalf("runs of the plugin when Start returned: %q, want only its describe run", got)
	}
	p := m.ByCapability(sdk.CapChain)
	if p == nil || len(p.Desc.Tools) != 1 || p.Desc.Tools[0].Name != "pid" {
		t.Fatalf("described plugin %+v", p)
	}
	if got := string(p.Desc.Tools[0].InputSchema); got != `{"type":"object","properties":{}}` {
		t.Fatalf("listed schema %s", got)
	}
	err := m.Use(context.Background(), sdk.CapChain, func(c *pluginhost.Conn) error {
		_, err := c.Chain().ChainStatus(context.Background(), sdk.ChainStatusRequest{})
		return err
	})
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	if got := runLog(t, runs); got != "describe serve" {
		t.Fatalf("runs after the first call: %q", got)
	}
	m.Started()
	if _, ok := loadManifests(cache).get(p.Spec); !ok {
		t.Fatal("the start's description was not cached")
	}
	if logs.String() != "" {
		t.Fatalf("warnings: %s", logs.String())
	}
}

// TestPluginWithoutDescribeStartsWithinStart: a plugin whose binary has
// no describe mode (its own main) starts before Start returns, as before
// the describe run, and is listed from that start.
func TestPluginWithoutDescribeStartsWithinStart(t *testing.T) {
	dir := installFakes(t, "fakechain")
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv(envRunLog, runs)
	t.Setenv(envNoDescribe, "1")
	m := startCached(t, dir, filepath.Join(t.TempDir(), ManifestFile))
	if got := runLog(t, runs); got != "describe serve" {
		t.Fatalf("runs when Start returned: %q", got)
	}
	p := m.ByCapability(sdk.CapChain)
	if p == nil || len(p.Desc.Tools) != 1 {
		t.Fatalf("plugin %+v", p)
	}
	if st, _ := p.Health(); st != "running" {
		t.Fatalf("health %s", st)
	}
}

// TestShutdownBeforeReleaseStartsNothing: a host that stops before its
// described plugins were released never starts them.
func TestShutdownBeforeReleaseStartsNothing(t *testing.T) {
	dir := installFakes(t, "fakechain")
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv(envRunLog, runs)
	m := startCached(t, dir, filepath.Join(t.TempDir(), ManifestFile))
	m.Shutdown(context.Background())
	if got := runLog(t, runs); got != "describe" {
		t.Fatalf("runs after Shutdown: %q", got)
	}
	if err := m.ByCapability(sdk.CapChain).Failure(); err == nil || !strings.Contains(err.Error(), "shut down") {
		t.Fatalf("failure %v", err)
	}
}

// TestSchemaLayoutIsNoChange: a plugin whose schema is laid out over
// lines (as in its source) describes itself as its cached (compact)
// description did: a host started from the cache does not warn that it
// changed.
func TestSchemaLayoutIsNoChange(t *testing.T) {
	dir := installFakes(t, "fakechain")
	m, logs := startLogged(t, dir, warmCache(t, dir))
	m.Started()
	if strings.Contains(logs.String(), "otherwise") {
		t.Fatalf("warned of a change: %s", logs.String())
	}

	a := pluginhost.Description{Tools: []sdk.Tool{{Name: "x", InputSchema: json.RawMessage("{\n \"type\": \"object\"\n}")}}}
	b := pluginhost.Description{Tools: []sdk.Tool{{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	if !sameDescription(a, b) {
		t.Fatal("a schema's layout counts as a change")
	}
	b.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{}}}`)
	if sameDescription(a, b) {
		t.Fatal("another schema counts as the same")
	}
}
