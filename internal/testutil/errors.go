package testutil

import (
	"testing"

	"github.com/mmcp-dev/mmcp/sdk/mmerr"
)

// WantCode fails t unless err is, or wraps, an *mmerr.Error (sdk.Error)
// with code, and returns it.
func WantCode(t testing.TB, err error, code string) *mmerr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	e := mmerr.AsError(err)
	if e.Code != code {
		t.Fatalf("got %v (details %v), want code %s", err, e.Details, code)
	}
	return e
}
