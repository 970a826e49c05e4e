package e2e

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/sdk"
)

// median returns the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// BenchmarkHostStartToToolsList: host start (with every built plugin) to
// tools/list answered, as a client times it (process start included):
// warm, with the plugins' descriptions cached by an earlier host in the
// same workspace; elsewhere, cached by an earlier host in another
// workspace (a client that starts mmcp in a new directory); cold, with no
// cache (the first start after the plugins were built or installed: the
// five plugins start before the host serves). Target: median <= 150 ms.
func BenchmarkHostStartToToolsList(b *testing.B) {
	ws := workspace(b, "build-ok")
	cache := b.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	times := map[string][]time.Duration{}
	for i := 0; i < b.N; i++ {
		for _, kind := range []string{"cold", "warm", "elsewhere"} {
			dir := ws
			switch kind {
			case "cold":
				if err := os.RemoveAll(filepath.Join(cache, "mmcp")); err != nil {
					b.Fatal(err)
				}
			case "elsewhere":
				dir = workspace(b, "build-ok")
			}
			start := time.Now()
			h := startHost(b, HostOptions{Repo: dir, Env: env})
			if _, err := h.Client.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
				b.Fatal(err)
			}
			times[kind] = append(times[kind], time.Since(start))
			h.Close()
		}
	}
	b.ReportMetric(median(times["warm"]), "median-ms")
	b.ReportMetric(median(times["elsewhere"]), "new-workspace-median-ms")
	b.ReportMetric(median(times["cold"]), "cold-median-ms")
}

// BenchmarkPluginRoundTrip: one capability call host -> plugin process
// (Build.IsBuilt over go-plugin gRPC). Target: median <= 0.5 ms.
func BenchmarkPluginRoundTrip(b *testing.B) {
	m := plugins.New(plugins.Config{Workspace: workspace(b, "build-ok"), ExeDir: b.TempDir(),
		PluginPath: []string{filepath.Dir(installPlugin(b, filepath.Join(bin, "mmcp-plugin-build"), b.TempDir(), "build"))}},
		hclog.NewNullLogger())
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(ctx)
	p := m.ByCapability(sdk.CapBuild)
	if p == nil {
		b.Fatal("no build plugin")
	}
	conn, err := p.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := conn.Builder().IsBuilt(ctx, sdk.IsBuiltRequest{}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(median(ds), "median-ms")
}
