package browser

import (
	"context"
	"testing"
)

// unlockedTest is launchTest's session, unlocked, with the test's context.
func unlockedTest(t *testing.T) (*Session, context.Context) {
	t.Helper()
	s := launchTest(t)
	ctx := tctx(t)
	if err := s.Unlock(ctx, testPassword); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}
