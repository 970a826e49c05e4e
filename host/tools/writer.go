package tools

import (
	"context"
	"runtime/debug"
	"sync"
)

// stepWriter hands steps to the recorder in call order, off the session
// lock: a call takes its record's place (reserve) under the lock; its
// observation and the encoding, validating and writing of the record
// (milliseconds, tens of them for the tree of a big page) follow while the
// next call runs. Steps reach the recorder one at a time in the order
// their places were taken, so the records of an owner keep the order of
// its calls even when a later call's observation ends first.
type stepWriter struct {
	mu   sync.Mutex
	tail chan struct{} // closed once the last reserved step is written
}

// slot is one step's place in the writer's order.
type slot struct {
	prev <-chan struct{} // the step before it, nil for none
	done chan struct{}   // closed once this one is written (or left out)
}

// reserve takes the next place in the writer's order.
func (r *Runner) reserve() slot {
	done := make(chan struct{})
	r.writer.mu.Lock()
	prev := r.writer.tail
	r.writer.tail = done
	r.writer.mu.Unlock()
	return slot{prev: prev, done: done}
}

// write hands s to the recorder in sl's turn (nil leaves the place empty)
// and returns a channel closed once it is written. Every reserved slot is
// written exactly once.
func (r *Runner) write(ctx context.Context, sl slot, s *Step) <-chan struct{} {
	go func() {
		defer close(sl.done)
		if sl.prev != nil {
			<-sl.prev
		}
		if s == nil {
			return
		}
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("writing a step record panicked", "tool", s.Tool, "panic", p, "stack", string(debug.Stack()))
			}
		}()
		r.recorder.Record(ctx, *s)
	}()
	return sl.done
}

// written waits until every step reserved so far is written.
func (r *Runner) written() {
	r.writer.mu.Lock()
	tail := r.writer.tail
	r.writer.mu.Unlock()
	if tail != nil {
		<-tail
	}
}
