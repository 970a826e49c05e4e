package discovery

import (
	"context"
	"errors"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Cache is what this package keeps of one browser between calls: mmcp's
// isolated world per page session and frame (world.go), the page sessions
// the click binding was added to (click.go) and the last step-record walk
// of each page (observecache.go). A browser.Chrome owns one (NewCache)
// and binds it to its rod browser (WithCache): two browsers in one process
// share nothing, and a closed browser's entries go with its Cache.
type Cache struct {
	// worlds: a navigation destroys a world's context; callers then see
	// "Cannot find context" and recreate it (see callIn).
	worlds struct {
		sync.Mutex
		m map[worldKey]worldEntry
		// preinstalled: the page sessions whose new documents make the
		// world with the scripts in it (Preinstall)
		preinstalled map[proto.TargetSessionID]struct{}
	}
	bindings struct {
		sync.Mutex
		m map[proto.TargetSessionID]struct{}
	}
	walks walkCache
}

// walkCache holds the last step-record walk of each page world and its
// latest whole-page snapshot walk (observecache.go).
type walkCache struct {
	sync.Mutex
	m       map[worldKey]lastWalk
	walking map[worldKey]*inflight // the latest snapshot walk, in flight or done
	// observing: the record walk in flight, closed when it ended (see
	// observeWalk)
	observing map[worldKey]chan struct{}
}

// maxWorlds bounds each of a Cache's maps should pages close without
// ForgetPage.
const maxWorlds = 4096

// NewCache returns an empty Cache.
func NewCache() *Cache {
	c := &Cache{}
	c.worlds.m = map[worldKey]worldEntry{}
	c.worlds.preinstalled = map[proto.TargetSessionID]struct{}{}
	c.bindings.m = map[proto.TargetSessionID]struct{}{}
	c.walks.m = map[worldKey]lastWalk{}
	c.walks.walking = map[worldKey]*inflight{}
	c.walks.observing = map[worldKey]chan struct{}{}
	return c
}

type cacheKey struct{}

// WithCache returns ctx carrying c. A rod browser made with it
// (rod.New().Context(ctx)) gives c to every call of this package on its
// pages, whatever context the call itself runs in.
func WithCache(ctx context.Context, c *Cache) context.Context {
	return context.WithValue(ctx, cacheKey{}, c)
}

// cacheOf is the Cache of p's browser. A browser made without one is a
// mistake in mmcp's code (every call would redo its world and bindings and
// lose its walks, silently): cacheOf panics, which the tool runner turns
// into an error answer naming it.
func cacheOf(p *rod.Page) *Cache {
	if b := p.Browser(); b != nil {
		if c, ok := b.GetContext().Value(cacheKey{}).(*Cache); ok && c != nil {
			return c
		}
	}
	panic(errNoCache)
}

// errNoCache is cacheOf's panic.
var errNoCache = errors.New("discovery: the page's browser carries no discovery.Cache; make it with rod.New().Context(discovery.WithCache(ctx, discovery.NewCache()))")
