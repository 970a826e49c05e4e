package tools

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// gatedRecorder holds the first step it is given until release closes.
type gatedRecorder struct {
	started, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	steps            []Step
}

func (g *gatedRecorder) Record(_ context.Context, s Step) {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.started)
		<-g.release
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.steps = append(g.steps, s)
}

// TestRecordWrittenOffTheLock: a call's record is written after the
// session lock is free, so the next call runs while it is written; records
// still reach the recorder in call order, and Settle waits for them.
func TestRecordWrittenOffTheLock(t *testing.T) {
	r, obs, _, clicks := newTestRunner(t)
	rec := &gatedRecorder{started: make(chan struct{}), release: make(chan struct{})}
	r.SetRecorder(rec)
	call := func(id string) Envelope {
		return r.Run(context.Background(), Request{Tool: "mm_click", Args: json.RawMessage(`{"testId":"` + id + `"}`)}).Envelope
	}
	if env := call("first"); !env.OK {
		t.Fatalf("first: %+v", env)
	}
	<-rec.started // the first record is being written, and held
	// The next call runs (and is observed) while the first record is held.
	second := make(chan Envelope)
	go func() { second <- call("second") }()
	select {
	case env := <-second:
		if !env.OK || *clicks != 2 {
			t.Fatalf("second: %+v, %d clicks", env, *clicks)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the next call waited for the previous call's record to be written")
	}
	settled := make(chan struct{})
	go func() { r.Settle(); close(settled) }()
	select {
	case <-settled:
		t.Fatal("Settle returned before the held record was written")
	case <-time.After(50 * time.Millisecond):
	}
	close(rec.release)
	<-settled
	if len(rec.steps) != 2 {
		t.Fatalf("%d records, want 2", len(rec.steps))
	}
	for i, want := range []string{"first", "second"} {
		var in struct{ TestID string }
		_ = json.Unmarshal(rec.steps[i].Input, &in)
		if in.TestID != want {
			t.Fatalf("record %d is %s's, want %s's", i, in.TestID, want)
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.full != 2 {
		t.Fatalf("%d full observations, want 2", obs.full)
	}
}
