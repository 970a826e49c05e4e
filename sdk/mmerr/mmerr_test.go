package mmerr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestAsError(t *testing.T) {
	if AsError(nil) != nil {
		t.Fatal("AsError(nil) is not nil")
	}
	e := Errorf("MM_X", "bad %d", 1).WithDetails(map[string]any{"k": "v"})
	got := AsError(fmt.Errorf("wrapped: %w", e))
	if got != e || got.Error() != "MM_X: bad 1" || got.Details["k"] != "v" {
		t.Fatalf("wrapped *Error: %+v", got)
	}
	if got := AsError(errors.New("boom")); got.Code != CodeInternal || got.Message != "boom" {
		t.Fatalf("plain error: %+v", got)
	}
}

// An *Error made from a context's error still says which one it was:
// errors.Is sees through it, whether the cause came in by %w or by
// AsError, and its message reads as before.
func TestErrorKeepsItsCause(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	e := Errorf("MM_TIMEOUT", "the page did not load: %w", ctx.Err())
	if e.Message != "the page did not load: context deadline exceeded" {
		t.Fatalf("message %q", e.Message)
	}
	if !errors.Is(e, context.DeadlineExceeded) {
		t.Fatal("errors.Is(Errorf(..., %w, ctx.Err()), context.DeadlineExceeded) is false")
	}
	wrapped := fmt.Errorf("step: %w", e.WithDetails(map[string]any{"step": "chain"}))
	if !errors.Is(wrapped, context.DeadlineExceeded) {
		t.Fatal("the cause is lost through WithDetails and a wrap")
	}
	if in := AsError(fmt.Errorf("dial: %w", context.Canceled)); in.Code != CodeInternal || !errors.Is(in, context.Canceled) {
		t.Fatalf("AsError of a plain error lost its cause: %+v", in)
	}
	if Errorf("MM_X", "no cause %d", 1).Unwrap() != nil {
		t.Fatal("an error made without %w has a cause")
	}
	b, _ := json.Marshal(e)
	if string(b) != `{"code":"MM_TIMEOUT","message":"the page did not load: context deadline exceeded"}` {
		t.Fatalf("the cause reached the JSON: %s", b)
	}
}

// WithDetails leaves its receiver alone: two callers adding details to
// one shared *Error each get their own.
func TestWithDetailsCopies(t *testing.T) {
	base := Errorf("MM_X", "shared").WithDetails(map[string]any{"a": 1})
	one := base.WithDetails(map[string]any{"b": 2})
	two := base.WithDetails(map[string]any{"a": 3})
	if len(base.Details) != 1 || base.Details["a"] != 1 {
		t.Fatalf("receiver changed: %v", base.Details)
	}
	if one.Details["a"] != 1 || one.Details["b"] != 2 || two.Details["a"] != 3 || two.Details["b"] != nil {
		t.Fatalf("copies: %v %v", one.Details, two.Details)
	}
	if one == base || one.Code != "MM_X" || one.Message != "shared" {
		t.Fatalf("copy %+v", one)
	}
}
