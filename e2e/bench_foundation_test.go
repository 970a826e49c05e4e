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
// tools/list answered, as a client times it (process start included), with
// the plugins' descriptions cached from an earlier host (warm, what every
// start but a workspace's first sees) and without (cold: the five plugins
// start before the host serves). Target: median <= 150 ms.
func BenchmarkHostStartToToolsList(b *testing.B) {
	ws := workspace(b, "build-ok")
	cache := b.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	var cold, warm []time.Duration
	for i := 0; i < b.N; i++ {
		for _, kind := range []string{"cold", "warm"} {
			if kind == "cold" {
				if err := os.RemoveAll(filepath.Join(cache, "mmcp")); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			h := startHost(b, HostOptions{Repo: ws, Env: env})
			if _, err := h.Client.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			h.Close()
			if kind == "cold" {
				cold = append(cold, d)
			} else {
				warm = append(warm, d)
			}
		}
	}
	b.ReportMetric(median(warm), "median-ms")
	b.ReportMetric(median(cold), "cold-median-ms")
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
