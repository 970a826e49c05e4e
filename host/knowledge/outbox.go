package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Shared is a knowledge store shared by many hosts (package pgstore).
// With one set, the queries answer from it (but those about one session
// this host wrote answer from disk while records wait in the outbox or
// it fails, see fromDisk), and every session.json and step record
// written here is sent to it by the outbox, in order.
type Shared interface {
	Last(ctx context.Context, current string, q LastQuery) (*LastResult, error)
	Search(ctx context.Context, current string, q SearchQuery) (*SearchResult, error)
	Summarize(ctx context.Context, current string, q SummarizeQuery) (*SummarizeResult, error)
	Sessions(ctx context.Context, q SessionsQuery) (*SessionsResult, error)
	PriorKnowledge(ctx context.Context, current string, q PriorQuery) (*PriorKnowledge, error)
	// Put stores the items in order; storing an item twice is a no-op for
	// a step and an update for a session.json.
	Put(ctx context.Context, items []Item) error
}

// Item is one file of a knowledge root on its way to a shared store.
type Item struct {
	// SessionID is the session.
	SessionID string
	// StepID is the step's file name; "" for the session's session.json.
	StepID string
	// Data is the file's content (already redacted: it is what the file
	// store wrote).
	Data []byte
}

// outboxDir holds one marker file per item not yet in the shared store;
// its name starts with '.', so it is never read as a session.
const outboxDir = ".outbox"

// outbox sending limits.
const (
	outboxBatch      = 500
	outboxBackoffMin = 100 * time.Millisecond
	outboxBackoffMax = 5 * time.Second
)

// outbox sends the store's new files to the shared store: each write
// leaves a marker <root>/.outbox/<time>-<seq>-<pid> naming the file, and
// one goroutine sends the marked files in name order, removing a marker
// once its file is stored. Markers survive a restart, so nothing is lost
// while the database is down or the host stops.
type outbox struct {
	dir    string
	queued atomic.Int64
	seq    atomic.Uint64
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	lastErr error
	drained chan struct{} // closed and replaced whenever the queue is empty
}

// SetShared makes the store answer from sh and starts sending every file
// written here to it, beginning with any left queued by an earlier run.
// Call it once, before the first write; Close stops the sender.
func (s *Store) SetShared(sh Shared) error {
	s.shared = sh
	if s.root == "" {
		return nil
	}
	ob := &outbox{dir: filepath.Join(s.root, outboxDir), wake: make(chan struct{}, 1), done: make(chan struct{}), drained: make(chan struct{})}
	if err := os.MkdirAll(ob.dir, 0o700); err != nil {
		return knowledgeErr("create outbox", err)
	}
	names, err := ob.list()
	if err != nil {
		return err
	}
	ob.queued.Store(int64(len(names)))
	ctx, cancel := context.WithCancel(context.Background())
	ob.cancel = cancel
	s.ob = ob
	go s.send(ctx)
	return nil
}

// IsShared reports whether a shared store is set.
func (s *Store) IsShared() bool { return s != nil && s.shared != nil }

// Queued is how many records wait in the outbox for the shared store, and
// the last error sending them (nil when the last try succeeded).
func (s *Store) Queued() (int, error) {
	if s.ob == nil {
		return 0, nil
	}
	s.ob.mu.Lock()
	defer s.ob.mu.Unlock()
	return int(max(0, s.ob.queued.Load())), s.ob.lastErr
}

// Flush waits until the outbox is empty or ctx ends.
func (s *Store) Flush(ctx context.Context) error {
	if s.ob == nil {
		return nil
	}
	for {
		s.ob.mu.Lock()
		n, ch := s.ob.queued.Load(), s.ob.drained
		s.ob.mu.Unlock()
		if n <= 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("%d records still queued for the shared knowledge store: %w", n, ctx.Err())
		}
	}
}

// Close stops the outbox's sender; what is queued stays for the next run.
func (s *Store) Close() {
	if s.ob != nil && s.ob.cancel != nil {
		s.ob.cancel()
		<-s.ob.done
	}
}

// enqueue marks rel (relative to the root) for sending.
func (s *Store) enqueue(rel string) {
	ob := s.ob
	if ob == nil {
		return
	}
	name := fmt.Sprintf("%019d-%09d-%d", time.Now().UnixNano(), ob.seq.Add(1), os.Getpid())
	// Counted before the marker exists: the sender may send it the moment
	// it does, and its count must never run ahead of the markers (a
	// marker sent before it was counted left the count at 1 for good).
	ob.queued.Add(1)
	if err := writeAtomic(ob.dir, filepath.Join(ob.dir, name), []byte(rel)); err != nil {
		ob.queued.Add(-1)
		s.log.Error("cannot queue record for the shared knowledge store", "file", rel, "error", err)
		return
	}
	select {
	case ob.wake <- struct{}{}:
	default:
	}
}

// list returns the outbox's markers in send order.
func (ob *outbox) list() ([]string, error) {
	ents, err := os.ReadDir(ob.dir)
	if err != nil {
		return nil, knowledgeErr("list outbox", err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// send drains the outbox until ctx ends, backing off while the shared
// store fails.
func (s *Store) send(ctx context.Context) {
	ob := s.ob
	defer close(ob.done)
	backoff := outboxBackoffMin
	for {
		sent, more, err := s.sendBatch(ctx)
		ob.mu.Lock()
		ob.lastErr = err
		if n := ob.queued.Add(-int64(sent)); n <= 0 {
			ob.queued.Store(0)
			close(ob.drained)
			ob.drained = make(chan struct{})
		}
		ob.mu.Unlock()
		wait := time.Duration(0)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("shared knowledge store unavailable; records stay queued", "error", err, "retryIn", backoff)
			wait, backoff = backoff, min(2*backoff, outboxBackoffMax)
		case more:
			backoff = outboxBackoffMin
			continue
		default:
			backoff = outboxBackoffMin
			wait = time.Hour // until woken
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-ob.wake:
			if err == nil {
				t.Stop()
				break
			}
			<-t.C // still backing off
		case <-t.C:
		}
	}
}

// sendBatch sends the oldest markers' files and removes their markers. It
// reports how many it removed and whether more wait.
func (s *Store) sendBatch(ctx context.Context) (sent int, more bool, err error) {
	ob := s.ob
	names, err := ob.list()
	if err != nil || len(names) == 0 {
		return 0, false, err
	}
	batch := names[:min(outboxBatch, len(names))]
	items := make([]Item, 0, len(batch))
	for _, name := range batch {
		rel, err := os.ReadFile(filepath.Join(ob.dir, name))
		if err != nil {
			continue // another sender took it
		}
		it, ok := s.itemOf(string(rel))
		if ok {
			items = append(items, it)
		}
	}
	if len(items) > 0 {
		if err := s.shared.Put(ctx, items); err != nil {
			return 0, true, err
		}
	}
	for _, name := range batch {
		if err := os.Remove(filepath.Join(ob.dir, name)); err == nil {
			sent++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return sent, true, knowledgeErr("remove outbox marker", err)
		}
	}
	return sent, len(names) > len(batch), nil
}

// itemOf reads the file rel names ("<session>/session.json" or
// "<session>/steps/<file>"); a file that is gone or not of the store is
// dropped with a warning.
func (s *Store) itemOf(rel string) (Item, bool) {
	parts := strings.Split(rel, "/")
	var it Item
	switch {
	case len(parts) == 2 && parts[1] == "session.json" && ValidSessionID(parts[0]):
		it.SessionID = parts[0]
	case len(parts) == 3 && parts[1] == "steps" && ValidSessionID(parts[0]) && !strings.HasPrefix(parts[2], "."):
		it.SessionID, it.StepID = parts[0], parts[2]
	default:
		s.log.Warn("outbox marker names no record; dropped", "marker", rel)
		return it, false
	}
	b, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil {
		s.log.Warn("queued record unreadable; dropped", "file", rel, "error", err)
		return it, false
	}
	it.Data = b
	return it, true
}
