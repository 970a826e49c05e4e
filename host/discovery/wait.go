package discovery

import (
	"context"

	"github.com/go-rod/rod"
)

// WaitResult is mm_wait_for's result.
type WaitResult struct {
	// Found is true when the target became visible.
	Found bool `json:"found"`
	// Target is Target.String() of the target.
	Target string `json:"target"`
}

// WaitFor waits until the target is attached and visible. When ctx's
// deadline passes first it fails with MM_WAIT_TIMEOUT; a stale or unknown
// ref is MM_TARGET_NOT_FOUND at once.
func WaitFor(ctx context.Context, p *rod.Page, refs *RefMap, t Target) (WaitResult, error) {
	if _, err := actionable(ctx, p, refs, t, modeWait, "", nil); err != nil {
		return WaitResult{}, err
	}
	return WaitResult{Found: true, Target: t.String()}, nil
}
