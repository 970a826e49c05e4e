package tools

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// cancelRunner has mm_wait (blocks until its context ends, then answers
// MM_WAIT_TIMEOUT as a wait does), mm_click (counts runs) and
// mm_knowledge (NoSession).
func cancelRunner(t *testing.T) (r *Runner, started chan struct{}, clicks *int) {
	t.Helper()
	r = NewRunner(nil)
	started = make(chan struct{}, 1)
	clicks = new(int)
	schema := json.RawMessage(`{"type":"object"}`)
	for _, tl := range []*Tool{
		{Name: "mm_wait", Schema: schema, Handler: func(ctx context.Context, _ *Call) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, sdk.Errorf(sdk.CodeWaitTimeout, "element did not appear")
		}},
		{Name: "mm_click", Schema: schema, Handler: func(context.Context, *Call) (any, error) { *clicks++; return "clicked", nil }},
		{Name: "mm_knowledge", Schema: schema, NoSession: true, Handler: func(context.Context, *Call) (any, error) { return "known", nil }},
	} {
		if err := r.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	return r, started, clicks
}

// TestCancelledCallsAnswerCancelled: a cancelled wait answers MM_CANCELLED
// (not the wait's own timeout), and so does a click cancelled while it
// waits for the session lock, which then never runs.
func TestCancelledCallsAnswerCancelled(t *testing.T) {
	r, started, clicks := cancelRunner(t)
	waitCtx, cancelWait := context.WithCancel(context.Background())
	waitDone := make(chan Outcome, 1)
	go func() { waitDone <- r.Run(waitCtx, Request{Tool: "mm_wait"}) }()
	<-started

	clickCtx, cancelClick := context.WithCancel(context.Background())
	clickDone := make(chan Outcome, 1)
	go func() { clickDone <- r.Run(clickCtx, Request{Tool: "mm_click"}) }()
	cancelClick()
	if out := <-clickDone; out.Envelope.OK || out.Envelope.Error.Code != sdk.CodeCancelled {
		t.Fatalf("queued click: %+v", out.Envelope)
	}
	cancelWait()
	out := <-waitDone
	if out.Envelope.OK || out.Envelope.Error.Code != sdk.CodeCancelled || out.Envelope.Error.Details["interrupted"] != sdk.CodeWaitTimeout {
		t.Fatalf("cancelled wait: %+v", out.Envelope.Error)
	}
	if *clicks != 0 {
		t.Fatalf("the cancelled click ran")
	}
	// The next click runs.
	if out := r.Run(context.Background(), Request{Tool: "mm_click"}); !out.Envelope.OK || *clicks != 1 {
		t.Fatalf("click after: %+v", out.Envelope)
	}
}

// TestNoSessionToolsSkipTheLock: a NoSession tool answers at once while
// another call holds the session lock.
func TestNoSessionToolsSkipTheLock(t *testing.T) {
	r, started, _ := cancelRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx, Request{Tool: "mm_wait"})
	<-started
	start := time.Now()
	out := r.Run(context.Background(), Request{Tool: "mm_knowledge"})
	if !out.Envelope.OK || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("knowledge call behind the lock: %+v after %s", out.Envelope, time.Since(start))
	}
}
