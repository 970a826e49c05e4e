package clienttest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client"
)

// CloseTimeout bounds the Close run at cleanup.
const CloseTimeout = 30 * time.Second

// Connect opens a handle with opts or fails the test. The handle is closed
// by t.Cleanup; a failing close is reported with t.Errorf. When
// opts.Log.Writer is nil the JSONL call log goes to t.Log, one call line per
// log entry, so it shows with -v or when the test fails.
func Connect(t testing.TB, opts client.Options) *client.Handle {
	t.Helper()
	var tw *testWriter
	if opts.Log.Writer == nil {
		tw = &testWriter{t: t}
		opts.Log.Writer = tw
	}
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	h, err := client.Connect(ctx, opts)
	if err != nil {
		t.Fatalf("clienttest: connect: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("clienttest: close: %v", err)
		}
		if tw != nil {
			tw.stop()
		}
	})
	return h
}

// testWriter sends whole lines to t.Log until the test's cleanup runs.
type testWriter struct {
	mu      sync.Mutex
	t       testing.TB
	buf     bytes.Buffer
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return len(p), nil
	}
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadBytes('\n')
		if err != nil {
			// Keep the partial line for the next write.
			rest := append([]byte(nil), line...)
			w.buf.Reset()
			w.buf.Write(rest)
			break
		}
		w.t.Log(string(bytes.TrimSuffix(line, []byte("\n"))))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}
