package discovery

import (
	"testing"

	"github.com/go-rod/rod"
)

// TestCacheOfWithoutCachePanics: a page of a browser made without a Cache
// is refused loudly instead of getting a fresh, forgotten Cache per call.
func TestCacheOfWithoutCachePanics(t *testing.T) {
	defer func() {
		if p := recover(); p != errNoCache {
			t.Fatalf("cacheOf of a page without a Cache: recovered %v, want errNoCache", p)
		}
	}()
	cacheOf(&rod.Page{})
}
