package sdk

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowStop is a plugin whose Stop blocks until released.
type slowStop struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func (s *slowStop) Info() Info                              { return Info{Name: "slow"} }
func (s *slowStop) Configure(context.Context, Config) error { return nil }
func (s *slowStop) Stop(context.Context) error {
	if s.calls.Add(1) == 1 {
		close(s.entered)
	}
	<-s.release
	return nil
}

// A second stop must not return while the first Stop still runs: its
// caller exits the process next and would leave children behind.
func TestStopOnceSecondCallerWaits(t *testing.T) {
	p := &slowStop{entered: make(chan struct{}), release: make(chan struct{})}
	stop := stopOnce(p)
	go stop()
	<-p.entered
	second := make(chan struct{})
	go func() { stop(); close(second) }()
	// The old select/close version returned at once; give it the chance
	// to (this wait can only let a wrong version pass, never fail a right one).
	select {
	case <-second:
		t.Fatal("second stop returned while the first Stop was still running")
	case <-time.After(100 * time.Millisecond):
	}
	close(p.release)
	<-second
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("Stop ran %d times, want 1", n)
	}
}

func TestStopOnceConcurrent(t *testing.T) {
	for i := 0; i < 2000; i++ {
		p := &slowStop{entered: make(chan struct{}), release: make(chan struct{})}
		close(p.release)
		stop := stopOnce(p)
		var wg sync.WaitGroup
		for j := 0; j < 2; j++ {
			wg.Add(1)
			go func() { defer wg.Done(); stop() }()
		}
		wg.Wait()
		if n := p.calls.Load(); n != 1 {
			t.Fatalf("Stop ran %d times, want 1", n)
		}
	}
}
