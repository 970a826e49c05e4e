package client

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// Calls made concurrently run one at a time, in the order they were made,
// and their log lines come out in that order, never interleaved.
func TestInvokeSerializesInCallOrder(t *testing.T) {
	t.Parallel()
	h, buf := connect(t, Options{})
	ctx := testCtx(t)
	iv := h.Invoker()
	queued := make(chan struct{})
	iv.queued = func() { queued <- struct{}{} }

	var wg sync.WaitGroup
	results := make([]map[string]any, 5)
	// The first call holds the queue while the others line up behind it.
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := h.Call(ctx, "slow", map[string]any{"ms": 200}); err != nil {
			t.Error(err)
		}
	}()
	<-queued
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := h.Call(ctx, "echo", map[string]any{"msg": string(rune('a' + i))})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = decodeText(t, Text(res))
		}()
		<-queued // call i is in the queue before call i+1 is made
	}
	wg.Wait()

	lines := parseLog(t, buf.String())
	if len(lines) != 12 {
		t.Fatalf("got %d log lines, want 12:\n%s", len(lines), buf.String())
	}
	var order []string
	for i := 0; i < len(lines); i += 2 {
		before, after := lines[i], lines[i+1]
		if before.m["_phase"] != "before" || after.m["_phase"] != "after" || before.m["_seq"] != after.m["_seq"] {
			t.Fatalf("lines %d,%d are not one call's before/after pair:\n%s\n%s", i, i+1, before.raw, after.raw)
		}
		if before.m["_seq"] != float64(i/2+1) {
			t.Fatalf("line %d: _seq = %v, want %d", i, before.m["_seq"], i/2+1)
		}
		if before.m["name"] == "echo" {
			order = append(order, before.m["arguments"].(map[string]any)["msg"].(string))
		}
	}
	if got := strings.Join(order, ""); got != "abcde" {
		t.Fatalf("echo calls ran in order %q, want %q", got, "abcde")
	}
	for i, r := range results {
		if r["msg"] != string(rune('a'+i)) {
			t.Fatalf("call %d got result %v", i, r)
		}
	}
}

// maxInflight runs n concurrent slow calls that each wait up to ms for a
// second call to be in flight, and returns what each saw.
func maxInflight(t *testing.T, h *Handle, n, ms int, opts ...CallOption) []float64 {
	t.Helper()
	ctx := testCtx(t)
	seen := make([]float64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := h.Call(ctx, "slow", map[string]any{"ms": ms, "want": 2}, opts...)
			if err != nil {
				t.Error(err)
				return
			}
			seen[i] = decodeText(t, Text(res))["maxInflight"].(float64)
		}()
	}
	wg.Wait()
	return seen
}

func TestInvokeNeverOverlapsByDefault(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{})
	for i, n := range maxInflight(t, h, 3, 150) {
		if n != 1 {
			t.Fatalf("call %d saw %v calls in flight on the server, want 1", i, n)
		}
	}
}

func TestParallelCallsOverlap(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{})
	start := time.Now()
	// Each call waits (up to 10 s) for the other: they only return early
	// when both are in flight at once.
	for i, n := range maxInflight(t, h, 2, 10000, Parallel()) {
		if n != 2 {
			t.Fatalf("parallel call %d saw %v calls in flight, want 2", i, n)
		}
	}
	if d := time.Since(start); d > 9*time.Second {
		t.Fatalf("parallel calls took %v: they did not overlap", d)
	}
}

func TestCallAfterCloseIsErrClosed(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{})
	ctx := testCtx(t)
	if _, err := h.Call(ctx, "echo", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, opts := range [][]CallOption{nil, {Parallel()}} {
		if _, err := h.Call(ctx, "echo", nil, opts...); !errors.Is(err, ErrClosed) {
			t.Fatalf("Call after Close = %v, want ErrClosed", err)
		}
	}
}

// A queued call whose context ends leaves the queue, and the calls behind
// it still run.
func TestQueuedCallCancelled(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{})
	ctx := testCtx(t)
	iv := h.Invoker()
	queued := make(chan struct{}, 3)
	iv.queued = func() { queued <- struct{}{} }
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, "slow", map[string]any{"ms": 300})
		done <- err
	}()
	<-queued
	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() {
		_, err := h.Call(cctx, "echo", nil)
		cancelled <- err
	}()
	<-queued
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled queued call = %v, want context.Canceled", err)
	}
	if _, err := h.Call(ctx, "echo", map[string]any{"text": "after"}); err != nil {
		t.Fatalf("call behind a cancelled one: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
