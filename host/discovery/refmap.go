package discovery

import (
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
// Describe) to exactly the elements they were taken from: the walk keeps the
// elements themselves in mmcp's isolated world (globalThis.__mmcpRefs) under
// the map's gen, until the next Snapshot or Describe on the page. A ref
// never re-queries by role and name: it resolves to its element only while
// that element is attached and still has the role and name it was given
// with; otherwise it is stale (MM_TARGET_NOT_FOUND). Observations for step
// records never create or replace refs. The zero value and nil are empty
// maps.
type RefMap struct {
	session proto.TargetSessionID
	// ref eK is element K-1 of the isolated world's __mmcpRefs with the
	// same gen.
	gen     int64
	frame   proto.PageFrameID
	entries []refEntry
}

type refEntry struct {
	role string
	name string
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

// handle is a located ref: a locator for the elements the walk kept (see
// js/lib.js locate).
type handle struct {
	loc map[string]any
}

// resolveRef turns ref into a handle. Unknown refs and refs of another
// page are MM_TARGET_NOT_FOUND here; the page checks that the element is
// still attached with its role and name.
func resolveRef(p *rod.Page, m *RefMap, ref string) (handle, error) {
	e, ok := m.lookup(ref)
	if !ok {
		return handle{}, staleRef(ref, "is unknown (refs live until the next snapshot)")
	}
	if m.session != p.SessionID {
		return handle{}, staleRef(ref, "belongs to another page")
	}
	return handle{loc: map[string]any{"gen": m.gen, "index": refIndex(ref), "role": e.role, "name": e.name}}, nil
}

func refIndex(ref string) int {
	i, _ := strconv.Atoi(ref[1:])
	return i - 1
}
