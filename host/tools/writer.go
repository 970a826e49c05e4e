package tools

import (
	"context"
	"runtime/debug"
	"sync"
)

// stepWriter hands steps to the recorder off the session lock: a call's
// observation is made under the lock (it shows the page right after the
// call), and encoding, validating and writing the record (milliseconds,
// tens of them for the tree of a big page) follow while the next call
// runs. Steps reach the recorder one at a time in the order they were
// queued: a call queues its step before it frees the session lock, so the
// records of an owner keep the order of its calls.
type stepWriter struct {
	mu   sync.Mutex
	tail chan struct{} // closed once the last queued step is written
}

// write queues s for the recorder and returns a channel closed once it is
// written.
func (r *Runner) write(ctx context.Context, s Step) <-chan struct{} {
	done := make(chan struct{})
	r.writer.mu.Lock()
	prev := r.writer.tail
	r.writer.tail = done
	r.writer.mu.Unlock()
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("writing a step record panicked", "tool", s.Tool, "panic", p, "stack", string(debug.Stack()))
			}
		}()
		r.recorder.Record(ctx, s)
	}()
	return done
}

// written waits until every step queued so far is written.
func (r *Runner) written() {
	r.writer.mu.Lock()
	tail := r.writer.tail
	r.writer.mu.Unlock()
	if tail != nil {
		<-tail
	}
}
