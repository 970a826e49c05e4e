package browser

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestLaunchWithinItsStep: a Chrome launcher that never answers (rod
// waiting for a pid that a dead leakless never sends) ends with the
// launch step's context instead of hanging the launch; one that answers
// gives its URL and pid.
func TestLaunchWithinItsStep(t *testing.T) {
	never := make(chan struct{})
	defer close(never)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, pid, err := launchWithin(ctx, func() (string, int, error) {
		<-never
		return "", 0, nil
	})
	if !errors.Is(err, context.DeadlineExceeded) || pid != 0 {
		t.Fatalf("a launcher that never answers: pid %d, error %v", pid, err)
	}
	u, pid, err := launchWithin(context.Background(), func() (string, int, error) { return "ws://x", 42, nil })
	if err != nil || u != "ws://x" || pid != 42 {
		t.Fatalf("got %q %d %v", u, pid, err)
	}
}
