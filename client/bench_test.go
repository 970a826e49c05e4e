package client

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkInvokeOverhead measures what the Invoker (queue, session check,
// JSONL log) adds to a raw mcp-go CallTool on the same connection. Each
// iteration makes one raw call and one Invoke of the trivial echo tool;
// overhead-ms is the median Invoke minus the median raw call. Run with
// -benchtime=1000x for the median of 1,000 calls.
func BenchmarkInvokeOverhead(b *testing.B) {
	h, err := Connect(context.Background(), Options{
		Command: serverCommand(b),
		Adapter: sessionAdapter(),
		Log:     LoggerOptions{Writer: io.Discard},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	args := map[string]any{"text": "hello", "testId": "field"}
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = args
	var raw, inv []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := h.Client().CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
		raw = append(raw, time.Since(start))
		start = time.Now()
		if _, err := h.Call(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
		inv = append(inv, time.Since(start))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / float64(time.Millisecond)
	}
	mr, mi := median(raw), median(inv)
	b.ReportMetric(mr, "raw-ms")
	b.ReportMetric(mi, "invoke-ms")
	b.ReportMetric(mi-mr, "overhead-ms")
}
