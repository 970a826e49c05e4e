package discovery

import (
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// A Cache keeps the last step-record walk of each page session and frame
// with the page's version then (js/observe.js): the next record of an
// unchanged page (a screenshot's after a click's, a wait's) reuses it
// instead of walking the page again, tens of milliseconds on a big page
// that the next call would wait for.
//
// A whole-page snapshot walks with the same options and keeps its walk
// there too (snapshotWalk), so the record that a snapshot ran beside (a
// read-only call runs while the previous call's record is observed) takes
// the snapshot's walk instead of walking the page a second time: the
// record waits for a snapshot walk in flight (walking; the latest one stays
// there once done), which it may take (ObserveTaking), else checks the
// page's version as for any kept walk.

// lastWalk is one kept walk: the page's version before it, the ref it
// marked ("" for none; "<gen>/<ref>" otherwise) and what it found.
type lastWalk struct {
	version string
	mark    string
	c       collected
}

// inflight is a whole-page snapshot walk, in flight or done: done closes
// once it ended, with c its walk when ok.
type inflight struct {
	done chan struct{}
	c    collected
	ok   bool
}

// observeWalk is the walk of Observe: jsCollect with opts, or the last
// walk of the page again when the page has not changed since and the walk
// marks no other ref than it did (mark is "" or the same), or the
// snapshot walk or the previous record walk it waited for when it marks
// none and take accepts where the page was at that walk and when the walk
// started (see ObserveTaking).
func observeWalk(p *rod.Page, frame proto.PageFrameID, opts map[string]any, mark string, take func(At) bool) (collected, error) {
	k := worldKey{p.SessionID, frame}
	lastWalks := &cacheOf(p).walks
	lastWalks.Lock()
	walking := lastWalks.walking[k]
	lastWalks.Unlock()
	if walking != nil {
		select {
		case <-walking.done:
			if walking.ok && mark == "" && take != nil && take(walking.c.At) {
				c := walking.c.clone()
				c.Mark = -1
				return c, nil
			}
		case <-p.GetContext().Done():
		}
	}
	// Record walks of one page go one after the other: the page runs them
	// one at a time anyway, and the later one then finds the page as the
	// earlier one left it (a screenshot's record after its click's, both
	// hurried by the next call) and skips its walk.
	defer observing(p, lastWalks, k)()
	lastWalks.Lock()
	prev, ok := lastWalks.m[k]
	lastWalks.Unlock()
	// The record walk before it (a click's, which gave way to the
	// screenshot that followed) is taken as a snapshot's walk is: when it
	// started after this record's call answered, no call that may change
	// the page ran between, so it saw the page as this call left it, as a
	// walk now would, a moment later.
	if ok && mark == "" && take != nil && take(prev.c.At) {
		c := prev.c.clone()
		c.Mark = -1
		return c, nil
	}
	known := ""
	if ok && (mark == "" || mark == prev.mark) {
		known = prev.version
	}
	var r observed
	started := time.Now()
	if err := evalIn(p, frame, jsObserve, idem, &r, opts, known); err != nil {
		return collected{}, err
	}
	if r.Same {
		// the kept walk is the page as this check found it: a later
		// record may take it as a walk started now
		prev.c.At = At{URL: r.URL, ReadyState: r.ReadyState, Version: known, Walked: started}
		keepWalk(lastWalks, k, prev)
		c := prev.c.clone()
		if mark == "" {
			c.Mark = -1
		}
		return c, nil
	}
	r.versioned()
	r.collected.At.Walked = started
	keepWalk(lastWalks, k, lastWalk{version: r.Version, mark: mark, c: r.collected.clone()})
	return r.collected, nil
}

// observed is what jsObserve answers.
type observed struct {
	Same    bool   `json:"same"`
	Version string `json:"version"`
	Opaque  bool   `json:"opaque"`
	collected
}

// versioned sets the walk's version (At.Version): "" on a page the
// version cannot follow, as PageVersion.
func (r *observed) versioned() {
	if !r.Opaque {
		r.collected.At.Version = r.Version
	}
}

// observing waits until no other record walk of page world k is in
// flight (or p's context ends), marks one in flight and returns the func
// that marks it ended.
func observing(p *rod.Page, lastWalks *walkCache, k worldKey) func() {
	mine := make(chan struct{})
	for {
		lastWalks.Lock()
		busy := lastWalks.observing[k]
		if busy == nil {
			if len(lastWalks.observing) >= maxWorlds {
				clear(lastWalks.observing)
			}
			lastWalks.observing[k] = mine
			lastWalks.Unlock()
			break
		}
		lastWalks.Unlock()
		select {
		case <-busy:
		case <-p.GetContext().Done():
			return func() {} // the walk fails on the spent context
		}
	}
	return func() {
		lastWalks.Lock()
		if lastWalks.observing[k] == mine {
			delete(lastWalks.observing, k)
		}
		lastWalks.Unlock()
		close(mine)
	}
}

// keepWalk keeps w as the last walk of page world k in walks.
func keepWalk(lastWalks *walkCache, k worldKey, w lastWalk) {
	lastWalks.Lock()
	defer lastWalks.Unlock()
	if len(lastWalks.m) >= maxWorlds {
		clear(lastWalks.m)
	}
	lastWalks.m[k] = w
}

// snapshotWalk is the walk of a whole-page snapshot with opts (its gen
// makes the walked elements the agent's refs): the record walk's options
// plus the testids, and the page's version, so that it is kept for the
// next record of the unchanged page (see Cache.walks).
func snapshotWalk(p *rod.Page, frame proto.PageFrameID, opts map[string]any) (collected, error) {
	k := worldKey{p.SessionID, frame}
	lastWalks := &cacheOf(p).walks
	in := &inflight{done: make(chan struct{})}
	started := time.Now()
	lastWalks.Lock()
	if len(lastWalks.walking) >= maxWorlds {
		clear(lastWalks.walking)
	}
	// The latest snapshot walk stays after it ended: a record that starts
	// later may still take it (ObserveTaking).
	lastWalks.walking[k] = in
	lastWalks.Unlock()
	defer close(in.done)
	opts["ids"] = DefaultTestIDLimit
	var r observed
	if err := evalIn(p, frame, jsObserve, idem, &r, opts, ""); err != nil {
		return collected{}, err
	}
	r.versioned()
	r.collected.At.Walked = started
	// one copy serves the kept walk and the waiting records: each clones
	// what it takes
	kept := r.collected.clone()
	keepWalk(lastWalks, k, lastWalk{version: r.Version, c: kept})
	in.c, in.ok = kept, true
	return r.collected, nil
}

// clone copies the lists a caller numbers or fills in, so a kept walk
// never changes.
func (c collected) clone() collected {
	c.IDs = append([]observation.TestIDItem(nil), c.IDs...)
	c.Nodes = append([]observation.A11yNode(nil), c.Nodes...)
	return c
}
