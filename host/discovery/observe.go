package discovery

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// DefaultTestIDLimit is the testid limit when the caller gives none
// (mm_list_testids default); MaxTestIDLimit is the schema's maximum.
const (
	DefaultTestIDLimit = 150
	MaxTestIDLimit     = 500
)

// collected is what js/collect.js returns.
type collected struct {
	IDs   []observation.TestIDItem `json:"ids"`
	Nodes []observation.A11yNode   `json:"nodes"`
}

func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultTestIDLimit
	case limit > MaxTestIDLimit:
		return MaxTestIDLimit
	}
	return limit
}

// TestIDs returns up to limit visible [data-testid] elements of p in
// document order, including open shadow roots and same-origin iframes, in one
// round trip in mmcp's isolated world (mm_list_testids). limit <= 0 means
// DefaultTestIDLimit.
func TestIDs(ctx context.Context, p *rod.Page, limit int) ([]observation.TestIDItem, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, err
	}
	var c collected
	if err := evalIn(p, main, jsCollect, &c, map[string]any{"ids": clampLimit(limit)}); err != nil {
		return nil, fmt.Errorf("collect testids: %w", err)
	}
	if c.IDs == nil {
		c.IDs = []observation.TestIDItem{}
	}
	return c.IDs, nil
}

// Observe is the cheap full observation taken after every action (spec 003,
// policy "all"): the visible testids and a trimmed tree with refs, computed
// by one DOM walk in mmcp's isolated world (implicit ARIA roles and a
// simplified accessible name) instead of Chrome's AX tree. Its refs resolve
// to the very elements the walk saw; the next Observe on the page replaces
// them, so older maps report their refs as stale.
func Observe(ctx context.Context, p *rod.Page, limit int) (ids []observation.TestIDItem, nodes []observation.A11yNode, refs *RefMap, err error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, nil, nil, err
	}
	gen := observeGen.Add(1)
	var c collected
	opts := map[string]any{"ids": clampLimit(limit), "nodes": true, "gen": gen}
	if err := evalIn(p, main, jsCollect, &c, opts); err != nil {
		return nil, nil, nil, fmt.Errorf("observe: %w", err)
	}
	refs = &RefMap{session: p.SessionID, gen: gen, frame: main, entries: make([]refEntry, len(c.Nodes))}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		n.Ref = fmt.Sprintf("e%d", i+1)
		if n.Path == nil {
			n.Path = []string{}
		}
		refs.entries[i] = refEntry{frame: main, role: n.Role, name: n.Name}
	}
	if c.IDs == nil {
		c.IDs = []observation.TestIDItem{}
	}
	if c.Nodes == nil {
		c.Nodes = []observation.A11yNode{}
	}
	return c.IDs, c.Nodes, refs, nil
}
