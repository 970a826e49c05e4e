package tools

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// LineWriter serializes whole lines to a stream. The stdio transport writes
// every message through it, and progress notifications are written through
// it synchronously, so a step's progress always reaches the client before
// the response that ends the call (mcp-go queues notifications on another
// goroutine, which can lose that race).
type LineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	after []func() // run once the next message is written (afterNextWrite)
}

// NewLineWriter wraps w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Write writes p under the lock; callers write one message per call.
func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	after := l.after
	l.after = nil
	l.mu.Unlock()
	for _, f := range after {
		f()
	}
	return n, err
}

// afterNextWrite runs f once the next message is written (whichever it
// is), or at the latest after wait.
func (l *LineWriter) afterNextWrite(f func(), wait time.Duration) {
	once := sync.OnceFunc(f)
	l.mu.Lock()
	l.after = append(l.after, once)
	l.mu.Unlock()
	time.AfterFunc(wait, once)
}

type notifierKey struct{}

// WithNotifier makes progress notifications of calls under ctx go straight
// to w.
func WithNotifier(ctx context.Context, w *LineWriter) context.Context {
	return context.WithValue(ctx, notifierKey{}, w)
}

func notifier(ctx context.Context) *LineWriter {
	w, _ := ctx.Value(notifierKey{}).(*LineWriter)
	return w
}

// writeNotification writes one JSON-RPC notification line.
func (l *LineWriter) writeNotification(method string, params map[string]any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	_, err = l.Write(append(b, '\n'))
	return err
}
