package discovery

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// jsQueryOne(sel) returns the first match (deep), or null.
var jsQueryOne = "function(sel) {\n" + jsLib + "\nconst f = locate({sel});\nif (f.state === 'badselector') throw new Error(f.reason);\nreturn f.el;\n}"

// axSnapshot is the trimmed tree of p computed from Chrome's own AX tree
// (Accessibility.getFullAXTree), including child frames and open shadow
// roots: what Snapshot's in-page walk is checked against (it was
// mm_accessibility_snapshot's implementation until the walk replaced it).
// A non-empty rootSelector scopes it to that element's subtree; a selector
// matching nothing is MM_TARGET_NOT_FOUND, an invalid one MM_INVALID_INPUT.
func axSnapshot(ctx context.Context, p *rod.Page, rootSelector string) ([]observation.A11yNode, error) {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil, err
	}

	// The main tree, and the frame tree followed by each child frame's
	// tree, are fetched concurrently.
	var (
		wg              sync.WaitGroup
		owners          map[proto.DOMBackendNodeID]*axFrame
		treeErr, rootEr error
		scope           proto.DOMBackendNodeID
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		tree, err := proto.PageGetFrameTree{}.Call(p)
		if err != nil {
			treeErr = err
			return
		}
		owners = childFrames(p, tree.FrameTree)
	}()
	if rootSelector != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scope, rootEr = backendOf(p, main, rootSelector)
		}()
	}
	mainAX, err := fullAXTree(p, "")
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("get AX tree: %w", err)
	}
	if rootEr != nil {
		return nil, rootEr
	}
	if treeErr != nil {
		return nil, fmt.Errorf("get frame tree: %w", treeErr)
	}

	frames := []*axFrame{newAXFrame(main, mainAX)}
	for _, f := range owners {
		frames = append(frames, f)
	}

	t := newTrimmer(owners)
	if scope == 0 {
		if r := frames[0].root(); r != nil {
			t.walk(frames[0], r, []string{})
		}
	} else {
		f, n := findBackend(frames, scope)
		if n == nil {
			// The element exists but Chrome keeps no AX node for it
			// (e.g. display:none): an empty scope, not an error.
			return []observation.A11yNode{}, nil
		}
		t.walk(f, n, contextPath(f, n))
	}
	return t.nodes, nil
}

// childFrames fetches the AX tree and owner iframe of every descendant frame,
// concurrently. Frames that cannot be read (out-of-process, detached) are
// skipped.
func childFrames(p *rod.Page, root *proto.PageFrameTree) map[proto.DOMBackendNodeID]*axFrame {
	var ids []proto.PageFrameID
	var visit func(t *proto.PageFrameTree)
	visit = func(t *proto.PageFrameTree) {
		for _, c := range t.ChildFrames {
			ids = append(ids, c.Frame.ID)
			visit(c)
		}
	}
	visit(root)
	out := map[proto.DOMBackendNodeID]*axFrame{}
	if len(ids) == 0 {
		return out
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var owner *proto.DOMGetFrameOwnerResult
			var oerr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				owner, oerr = proto.DOMGetFrameOwner{FrameID: id}.Call(p)
			}()
			ax, err := fullAXTree(p, id)
			<-done
			if err != nil || oerr != nil {
				return
			}
			mu.Lock()
			out[owner.BackendNodeID] = newAXFrame(id, ax)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func findBackend(frames []*axFrame, id proto.DOMBackendNodeID) (*axFrame, *axNode) {
	for _, f := range frames {
		for _, n := range f.nodes {
			if n.BackendDOMNodeID == id {
				return f, n
			}
		}
	}
	return nil, nil
}

// backendOf finds the first element matching sel (deep: shadow roots and
// same-origin iframes) and returns its backend node id.
func backendOf(p *rod.Page, frame proto.PageFrameID, sel string) (proto.DOMBackendNodeID, error) {
	w, err := world(p, frame)
	if err != nil {
		return 0, err
	}
	res, err := proto.RuntimeCallFunctionOn{
		FunctionDeclaration: jsQueryOne, ExecutionContextID: w.id, Arguments: callArgs([]any{sel}), ObjectGroup: objectGroup,
	}.Call(p)
	if err != nil {
		return 0, fmt.Errorf("query rootSelector: %w", err)
	}
	if res.ExceptionDetails != nil {
		return 0, sdk.Errorf(sdk.CodeInvalidInput, "rootSelector %q is not a valid CSS selector", sel)
	}
	if res.Result.ObjectID == "" {
		return 0, sdk.Errorf(sdk.CodeTargetNotFound, "no element matches rootSelector %q", sel).
			WithDetails(map[string]any{"rootSelector": sel})
	}
	defer func() { _ = proto.RuntimeReleaseObject{ObjectID: res.Result.ObjectID}.Call(p) }()
	d, err := proto.DOMDescribeNode{ObjectID: res.Result.ObjectID}.Call(p)
	if err != nil {
		return 0, fmt.Errorf("describe rootSelector element: %w", err)
	}
	return d.Node.BackendNodeID, nil
}
