package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkRunnerOverhead: a call through the runner (validation, lock,
// deadline, envelope) whose handler does nothing. Target: <= 1 ms.
func BenchmarkRunnerOverhead(b *testing.B) {
	r := NewRunner(nil)
	if err := r.Add(&Tool{Name: "mm_noop", Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"testId":{"type":"string","minLength":1},"timeoutMs":{"type":"integer","minimum":0}}}`),
		Handler: func(context.Context, *Call) (any, error) { return nil, nil }}); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"testId":"x","timeoutMs":100}`)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		out := r.Run(ctx, Request{Tool: "mm_noop", Args: args})
		if !out.Envelope.OK {
			b.Fatal(out.Envelope.Error)
		}
		b.StopTimer()
		_ = ToResult(out)
		b.StartTimer()
	}
}
