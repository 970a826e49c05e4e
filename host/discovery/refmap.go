package discovery

import (
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

// RefMap maps the refs of one snapshot or observation (e1..eN) to exactly the
// elements they were taken from. A map from Snapshot keeps backend DOM node
// ids (and their frames); a map from Observe keeps the elements themselves in
// mmcp's isolated world, replaced by the next Observe. Either way a ref never
// re-queries by role and name: a removed element is reported as stale.
// The zero value and nil are empty maps.
type RefMap struct {
	session proto.TargetSessionID
	// gen > 0 marks an observation map: ref eK is element K-1 of the
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

// observeGen numbers observation maps so an old map never resolves against
// a newer observation's elements.
var observeGen atomic.Int64

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

// resolveRef turns ref into a handle. Unknown and vanished refs are
// MM_TARGET_NOT_FOUND.
func resolveRef(p *rod.Page, m *RefMap, ref string) (handle, error) {
	e, ok := m.lookup(ref)
	if !ok {
		return handle{}, staleRef(ref, "is unknown (refs live until the next snapshot)")
	}
	if m.session != p.SessionID {
		return handle{}, staleRef(ref, "belongs to another page")
	}
	if m.gen > 0 {
		return handle{loc: map[string]any{"gen": m.gen, "index": refIndex(ref)}}, nil
	}
	if e.backend == 0 {
		return handle{}, staleRef(ref, "has no DOM element to act on")
	}
	ctxID, err := world(p, e.frame)
	if err != nil {
		return handle{}, staleRef(ref, "is in a frame that is gone")
	}
	res, err := proto.DOMResolveNode{BackendNodeID: e.backend, ExecutionContextID: ctxID, ObjectGroup: objectGroup}.Call(p)
	if contextGone(err) {
		forgetWorld(p, e.frame)
		if ctxID, err = world(p, e.frame); err == nil {
			res, err = proto.DOMResolveNode{BackendNodeID: e.backend, ExecutionContextID: ctxID, ObjectGroup: objectGroup}.Call(p)
		}
	}
	if err != nil {
		if nodeGone(err) {
			return handle{}, staleRef(ref, "points at an element that no longer exists")
		}
		return handle{}, fmt.Errorf("resolve ref %s: %w", ref, err)
	}
	return handle{obj: res.Object.ObjectID}, nil
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
func (h handle) release(p *rod.Page) {
	if h.obj != "" {
		_ = proto.RuntimeReleaseObject{ObjectID: h.obj}.Call(p)
	}
}
