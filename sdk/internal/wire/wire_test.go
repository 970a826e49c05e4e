package wire

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk/mmerr"
)

// ToPBError encodes every error as data: a domain error keeps its code and
// details, any other error becomes MM_INTERNAL_ERROR; FromPBError reads
// both back.
func TestToPBErrorRoundTrip(t *testing.T) {
	if ToPBError(nil) != nil || FromPBError(nil) != nil {
		t.Fatal("nil does not stay nil")
	}
	dom := fmt.Errorf("wrapped: %w", mmerr.Errorf("MM_X", "bad").WithDetails(map[string]any{"field": "a"}))
	got := mmerr.AsError(FromPBError(ToPBError(dom)))
	if got.Code != "MM_X" || got.Message != "bad" || got.Details["field"] != "a" {
		t.Fatalf("domain error came back as %+v", got)
	}
	got = mmerr.AsError(FromPBError(ToPBError(errors.New("disk full"))))
	if got.Code != mmerr.CodeInternal || got.Message != "disk full" {
		t.Fatalf("plain error came back as %+v", got)
	}
}
