package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// TestOwnersRunSideBySide: a call of one owner that holds its session lock
// never holds up another owner's call; the same owner's next call waits.
func TestOwnersRunSideBySide(t *testing.T) {
	r := NewRunner(nil)
	entered, release := make(chan string, 2), make(chan struct{})
	err := Add(r, Tool{Name: "mm_block", Schema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *Call, _ struct{}) (any, error) {
			entered <- Owner(ctx)
			<-release
			return nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	a, b := WithOwner(context.Background(), "a"), WithOwner(context.Background(), "b")
	done := make(chan string, 3)
	go func() { r.Run(a, Request{Tool: "mm_block"}); done <- "a" }()
	if got := <-entered; got != "a" {
		t.Fatalf("entered %q", got)
	}
	go func() { r.Run(b, Request{Tool: "mm_block"}); done <- "b" }()
	if got := <-entered; got != "b" {
		t.Fatalf("owner b waited for owner a: entered %q", got)
	}
	// a's lock is held, b's too; a third owner's lock is free.
	for owner, free := range map[string]bool{"a": false, "b": false, "c": true} {
		l := r.lock(WithOwner(context.Background(), owner))
		select {
		case l <- struct{}{}:
			<-l
			if !free {
				t.Errorf("owner %s's lock is free while its call runs", owner)
			}
		default:
			if free {
				t.Errorf("owner %s's lock is held", owner)
			}
		}
	}
	close(release)
	<-done
	<-done
}

// TestOwnerErrAnswers: a call whose owner could not be resolved answers
// that error and never runs.
func TestOwnerErrAnswers(t *testing.T) {
	r := NewRunner(nil)
	ran := false
	_ = Add(r, Tool{Name: "mm_x", Schema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *Call, struct{}) (any, error) { ran = true; return nil, nil })
	ctx := WithOwnerErr(context.Background(), sdk.Errorf(sdk.CodeSessionNotFound, "no session mm-x"))
	out := r.Run(ctx, Request{Tool: "mm_x"})
	if out.Envelope.OK || out.Envelope.Error.Code != sdk.CodeSessionNotFound || ran {
		t.Fatalf("got %+v (ran %v), want %s without running", out.Envelope, ran, sdk.CodeSessionNotFound)
	}
}
