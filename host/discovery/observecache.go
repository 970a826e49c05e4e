package discovery

import (
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// A Cache keeps the last step-record walk of each page session and frame
// with the page's version then (js/observe.js): the next record of an
// unchanged page (a screenshot's after a click's, a wait's) reuses it
// instead of walking the page again, tens of milliseconds on a big page
// that the next call would wait for.

// lastWalk is one kept walk: the page's version before it, the ref it
// marked ("" for none; "<gen>/<ref>" otherwise) and what it found.
type lastWalk struct {
	version string
	mark    string
	c       collected
}

// observeWalk is the walk of Observe: jsCollect with opts, or the last
// walk of the page again when the page has not changed since and the walk
// marks no other ref than it did (mark is "" or the same).
func observeWalk(p *rod.Page, frame proto.PageFrameID, opts map[string]any, mark string) (collected, error) {
	k := worldKey{p.SessionID, frame}
	lastWalks := &cacheOf(p).walks
	lastWalks.Lock()
	prev, ok := lastWalks.m[k]
	lastWalks.Unlock()
	known := ""
	if ok && (mark == "" || mark == prev.mark) {
		known = prev.version
	}
	var r struct {
		Same    bool   `json:"same"`
		Version string `json:"version"`
		collected
	}
	if err := evalIn(p, frame, jsObserve, idem, &r, opts, known); err != nil {
		return collected{}, err
	}
	if r.Same {
		c := prev.c.clone()
		if mark == "" {
			c.Mark = -1
		}
		return c, nil
	}
	lastWalks.Lock()
	if len(lastWalks.m) >= maxWorlds {
		clear(lastWalks.m)
	}
	lastWalks.m[k] = lastWalk{version: r.Version, mark: mark, c: r.collected.clone()}
	lastWalks.Unlock()
	return r.collected, nil
}

// clone copies the lists a caller numbers or fills in, so a kept walk
// never changes.
func (c collected) clone() collected {
	c.IDs = append([]observation.TestIDItem(nil), c.IDs...)
	c.Nodes = append([]observation.A11yNode(nil), c.Nodes...)
	return c
}
