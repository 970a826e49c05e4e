package discovery

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/mmcp-dev/mmcp/sdk"
)

// freshSnapshotHint ends every stale-ref message.
const freshSnapshotHint = "take a fresh snapshot (mm_accessibility_snapshot or mm_describe_screen)"

// RefMap maps the refs the agent was given (e1..eN, from Snapshot or
// Describe) to exactly the elements they were taken from. A map from Snapshot
// keeps backend DOM node ids (and their frames); a map from Describe keeps
// the elements themselves in mmcp's isolated world, until the next Describe.
// A ref never re-queries by role and name: it resolves to its element only
// while that element is attached and still has the role and name it was
// given with; otherwise it is stale (MM_TARGET_NOT_FOUND). Observations for
// step records never create or replace refs. The zero value and nil are
// empty maps.
type RefMap struct {
	session proto.TargetSessionID
	// gen > 0 marks a described map: ref eK is element K-1 of the
	// isolated world's __mmcpRefs with the same gen.
	gen     int64
	frame   proto.PageFrameID
	entries []refEntry
}

type refEntry struct {
	backend proto.DOMBackendNodeID
	frame   proto.PageFrameID
	role    string
	name    string
}

// describeGen numbers described maps so an old map never resolves against
// a newer description's elements.
var describeGen atomic.Int64

// Len is the number of refs.
func (m *RefMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.entries)
}

// Describe returns the role and accessible name recorded for ref, for
// messages and logs.
func (m *RefMap) Describe(ref string) (role, name string, ok bool) {
	e, ok := m.lookup(ref)
	if !ok {
		return "", "", false
	}
	return e.role, e.name, true
}

func (m *RefMap) lookup(ref string) (refEntry, bool) {
	if m == nil || !strings.HasPrefix(ref, "e") {
		return refEntry{}, false
	}
	i, err := strconv.Atoi(ref[1:])
	if err != nil || i < 1 || i > len(m.entries) {
		return refEntry{}, false
	}
	return m.entries[i-1], true
}

// staleRef is the MM_TARGET_NOT_FOUND error for a ref that no longer points
// at an element.
func staleRef(ref, why string) *sdk.Error {
	return sdk.Errorf(sdk.CodeTargetNotFound, "ref %s %s; %s", ref, why, freshSnapshotHint).
		WithDetails(map[string]any{"target": "ref:" + ref})
}

// handle is a located ref: either a remote element object in its frame's
// isolated world (snapshot maps) or a locator for the observation's stored
// elements.
type handle struct {
	obj proto.RuntimeRemoteObjectID
	loc map[string]any
}

// resolveRef turns ref into a handle. Unknown refs, and refs whose element
// is gone or no longer has its role and name, are MM_TARGET_NOT_FOUND.
func resolveRef(p *rod.Page, m *RefMap, ref string) (handle, error) {
	e, ok := m.lookup(ref)
	if !ok {
		return handle{}, staleRef(ref, "is unknown (refs live until the next snapshot)")
	}
	if m.session != p.SessionID {
		return handle{}, staleRef(ref, "belongs to another page")
	}
	if m.gen > 0 {
		// js/lib.js locate checks attachment, role and name in the page.
		return handle{loc: map[string]any{"gen": m.gen, "index": refIndex(ref), "role": e.role, "name": e.name}}, nil
	}
	if e.backend == 0 {
		return handle{}, staleRef(ref, "has no DOM element to act on")
	}
	obj, err := resolveBackend(p, m, ref, e.frame)
	if err != nil {
		return handle{}, err
	}
	h := handle{obj: obj}
	role, name, ignored, err := axIdentity(p, e.backend)
	switch {
	case err != nil && nodeGone(err):
		h.release(p)
		return handle{}, staleRef(ref, "points at an element that no longer exists")
	case err != nil:
		h.release(p)
		return handle{}, fmt.Errorf("check ref %s: %w", ref, err)
	case !ignored && (role != e.role || name != e.name):
		h.release(p)
		return handle{}, staleRef(ref, fmt.Sprintf("points at an element that changed from %s %q to %s %q", e.role, e.name, role, name))
	}
	return h, nil
}

// axIdentity is the role and accessible name Chrome computes now for the
// node backend, the same way Snapshot computed them. ignored is set when
// Chrome keeps no accessible node for it at the moment (hidden): then
// there is nothing to compare, and the action's visibility wait decides.
func axIdentity(p *rod.Page, backend proto.DOMBackendNodeID) (role, name string, ignored bool, err error) {
	// fetchRelatives must be sent as false; rod's struct omits it.
	raw, err := p.Call(p.GetContext(), string(p.SessionID), proto.AccessibilityGetPartialAXTree{}.ProtoReq(),
		map[string]any{"backendNodeId": backend, "fetchRelatives": false})
	if err != nil {
		return "", "", false, err
	}
	var res struct {
		Nodes []*axNode `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", "", false, fmt.Errorf("decode AX node: %w", err)
	}
	for _, n := range res.Nodes {
		if n.BackendDOMNodeID == backend {
			return axString(n.Role), axString(n.Name), n.Ignored, nil
		}
	}
	return "", "", true, nil
}

// resolveBackend resolves the element of ref in a snapshot map to a remote
// object in frame's isolated world; it must be the frame the element is in.
func resolveBackend(p *rod.Page, m *RefMap, ref string, frame proto.PageFrameID) (proto.RuntimeRemoteObjectID, error) {
	e, _ := m.lookup(ref)
	if e.frame != frame {
		return "", fmt.Errorf("ref %s is in another frame", ref)
	}
	ctxID, err := world(p, frame)
	if err != nil {
		return "", staleRef(ref, "is in a frame that is gone")
	}
	res, err := proto.DOMResolveNode{BackendNodeID: e.backend, ExecutionContextID: ctxID, ObjectGroup: objectGroup}.Call(p)
	if contextGone(err) {
		forgetWorld(p, frame)
		if ctxID, err = world(p, frame); err == nil {
			res, err = proto.DOMResolveNode{BackendNodeID: e.backend, ExecutionContextID: ctxID, ObjectGroup: objectGroup}.Call(p)
		}
	}
	if err != nil {
		if nodeGone(err) {
			return "", staleRef(ref, "points at an element that no longer exists")
		}
		return "", fmt.Errorf("resolve ref %s: %w", ref, err)
	}
	return res.Object.ObjectID, nil
}

func refIndex(ref string) int {
	i, _ := strconv.Atoi(ref[1:])
	return i - 1
}

// nodeGone reports the CDP error for a backend node id that was collected.
func nodeGone(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "No node with given id") || strings.Contains(s, "does not belong to the document")
}

// release frees a handle's remote object; best effort.
func (h handle) release(p *rod.Page) { release(p, h.obj) }

// release frees a remote object; best effort.
func release(p *rod.Page, obj proto.RuntimeRemoteObjectID) {
	if obj != "" {
		_ = proto.RuntimeReleaseObject{ObjectID: obj}.Call(p)
	}
}
