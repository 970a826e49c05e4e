package session

import (
	"context"
	"testing"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// TestStateReadInFlight: a read-only call's record takes the state read
// still in flight on its page (one read, not two), and never one of
// another page or one already done.
func TestStateReadInFlight(t *testing.T) {
	var rs stateReads
	page, other := &rod.Page{}, &rod.Page{}
	if rs.inFlight(page) != nil {
		t.Fatal("no read started: want none in flight")
	}
	release := make(chan struct{})
	reads := 0
	r := rs.start(page, func() (observation.State, string, error) {
		reads++
		<-release
		return observation.State{CurrentURL: "u"}, "v1", nil
	})
	if got := rs.inFlight(page); got != r {
		t.Fatalf("in flight on its page: got %p, want the read started (%p)", got, r)
	}
	if rs.inFlight(other) != nil {
		t.Fatal("a read of another page was taken")
	}
	close(release)
	st, v, err := r.wait(context.Background())
	if err != nil || st.CurrentURL != "u" || v != "v1" || reads != 1 {
		t.Fatalf("wait: %+v %q %v after %d reads; want the read's own result, read once", st, v, err, reads)
	}
	if rs.inFlight(page) != nil {
		t.Fatal("a read that is done was taken: its state may be older than the call")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := make(chan struct{})
	defer close(never)
	blocked := rs.start(page, func() (observation.State, string, error) { <-never; return observation.State{}, "", nil })
	if _, _, err := blocked.wait(ctx); err == nil {
		t.Fatal("wait on a cancelled context returned no error")
	}
}
