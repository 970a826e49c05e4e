package mmerr

import (
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
