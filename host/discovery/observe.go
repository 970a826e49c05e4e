package discovery

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

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
	Nodes treeNodes                `json:"nodes"`
	// Mark is the index of the marked node, -1 for none.
	Mark int `json:"mark"`
	// Root is why a scoped walk found no root: "missing" or "badselector"
	// (Reason says why).
	Root   string `json:"root"`
	Reason string `json:"reason"`
	// At is the page's URL and load state at the walk (observe.js only).
	At
}

// At is a page's URL (location.href) and load state (document.readyState)
// at a walk.
type At struct {
	URL        string `json:"href"`
	ReadyState string `json:"readyState"`
	// Version is the page's version at the walk (PageVersion: "" on a
	// page it cannot follow); a walk is synchronous, so the walk saw the
	// page of that version.
	Version string `json:"-"`
	// Walked is when the walk started (a whole-page snapshot's walk, or a
	// record's walk that read the page).
	Walked time.Time `json:"-"`
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
	if err := evalIn(p, main, jsCollect, idem, &c, map[string]any{"ids": clampLimit(limit)}); err != nil {
		return nil, fmt.Errorf("collect testids: %w", err)
	}
	if c.IDs == nil {
		c.IDs = []observation.TestIDItem{}
	}
	return c.IDs, nil
}

// Describe is the cheap full observation the agent is given
// (mm_describe_screen): the visible testids and a trimmed tree with refs,
// computed by one DOM walk in mmcp's isolated world (implicit ARIA roles and
// a simplified accessible name) instead of Chrome's AX tree. Its refs
// resolve to the very elements the walk saw (see RefMap); the next Describe
// on the page replaces them.
func Describe(ctx context.Context, p *rod.Page, limit int) (ids []observation.TestIDItem, nodes []observation.A11yNode, refs *RefMap, err error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, nil, nil, err
	}
	c, refs, err := walkRefs(p, main, map[string]any{"ids": clampLimit(limit)})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("describe: %w", err)
	}
	ids = c.result()
	return ids, c.Nodes, refs, nil
}

// walkRefs runs the tree walk with opts, keeping the walked elements as the
// page's refs under a new gen, and numbers the nodes e1..eN. A whole-page
// walk with the record's testid limit (or none) is kept for the next step
// record of the unchanged page (snapshotWalk).
func walkRefs(p *rod.Page, main proto.PageFrameID, opts map[string]any) (collected, *RefMap, error) {
	gen := describeGen.Add(1)
	opts["nodes"] = true
	opts["gen"] = gen
	var c collected
	var err error
	if ids, _ := opts["ids"].(int); opts["root"] == nil && (ids == 0 || ids == DefaultTestIDLimit) {
		c, err = snapshotWalk(p, main, opts)
	} else {
		err = evalIn(p, main, jsCollect, idem, &c, opts)
	}
	if err != nil {
		return c, nil, err
	}
	refs := &RefMap{session: p.SessionID, gen: gen, frame: main, entries: make([]refEntry, len(c.Nodes))}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		n.Ref = "e" + strconv.Itoa(i+1)
		refs.entries[i] = refEntry{role: n.Role, name: n.Name}
	}
	return c, refs, nil
}

// Observe is the observation of a step record (observation policy "all"): the
// same walk as Describe, but it leaves the agent's refs alone. Its nodes are
// numbered e1..eN except for ref, the ref the call named in refs: the
// element ref names carries ref when it is still in the tree, and no other
// node does, so a record never names another element than the one meant.
func Observe(ctx context.Context, p *rod.Page, limit int, refs *RefMap, ref string) ([]observation.TestIDItem, []observation.A11yNode, error) {
	ids, nodes, _, err := ObserveTaking(ctx, p, limit, refs, ref, nil)
	return ids, nodes, err
}

// ObserveTaking is Observe that takes the latest whole-page snapshot's
// walk, in flight or done, or, when it names no ref, the record walk of
// the page before it, when take accepts the page's URL, load state,
// version and the walk's start at that walk (the caller's take accepts
// one that started after the record's call answered: no call that may
// change the page ran since), even when the page changed after it. Nil
// take never does. It also returns where the page was at the walk it
// returns (At, with its version), so a caller can pair the walk with a
// state read without reading the page again.
func ObserveTaking(ctx context.Context, p *rod.Page, limit int, refs *RefMap, ref string, take func(At) bool) ([]observation.TestIDItem, []observation.A11yNode, At, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, nil, At{}, err
	}
	opts := map[string]any{"ids": clampLimit(limit), "nodes": true}
	mark := ""
	if _, ok := refs.lookup(ref); ok && refs.session == p.SessionID {
		opts["mark"] = map[string]any{"gen": refs.gen, "index": refIndex(ref)}
		mark = fmt.Sprintf("%d/%s", refs.gen, ref)
	}
	c, err := observeWalk(p, main, opts, mark, take)
	if err != nil {
		return nil, nil, At{}, fmt.Errorf("observe: %w", err)
	}
	skip, _ := strconv.Atoi(strings.TrimPrefix(ref, "e"))
	next := 1
	for i := range c.Nodes {
		if i == c.Mark {
			c.Nodes[i].Ref = ref
			continue
		}
		if next == skip {
			next++
		}
		c.Nodes[i].Ref = "e" + strconv.Itoa(next)
		next++
	}
	ids := c.result()
	return ids, c.Nodes, c.At, nil
}

// result fills in what the page left out: empty lists and paths.
func (c *collected) result() []observation.TestIDItem {
	for i := range c.Nodes {
		if c.Nodes[i].Path == nil {
			c.Nodes[i].Path = []string{}
		}
	}
	if c.Nodes == nil {
		c.Nodes = []observation.A11yNode{}
	}
	if c.IDs == nil {
		c.IDs = []observation.TestIDItem{}
	}
	return c.IDs
}
