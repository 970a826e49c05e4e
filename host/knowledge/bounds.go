package knowledge

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/internal/redact"
	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultMaxRecordBytes is the default size cap of one step record file
// (the host's --max-record-bytes). A record never exceeds it: an input over
// a quarter of it, or nested deeper than maxStoredDepth, is stored as its
// size and shape; long error details are cut; then the observation's tree
// and testids are shortened until the record fits.
const DefaultMaxRecordBytes = settings.DefaultMaxRecordBytes

const (
	// maxStoredDepth is the deepest nesting of an input or error details
	// stored as is (pretty-printing multiplies deep nesting).
	maxStoredDepth = 12
	// maxErrorMessage is the longest error message kept, in runes.
	maxErrorMessage = 2000
	// maxShapeKeys is how many top-level keys a shape names.
	maxShapeKeys = 32
	// maxShapeKey is the longest key name a shape keeps, in runes.
	maxShapeKey = 64
)

// storedInput is the input a record keeps: the sanitized input, or its
// size and shape when the tool rejected it (MM_INVALID_INPUT: it may be
// anything, of any size) or when it is too large or too deep to store.
func storedInput(in map[string]any, rejected bool, maxBytes int) map[string]any {
	if in == nil {
		return nil
	}
	b, _ := json.Marshal(in)
	depth := depthOf(in)
	switch {
	case rejected:
		return shapeOf(in, "rejected", len(b), depth)
	case len(b) > maxBytes/4 || depth > maxStoredDepth:
		return shapeOf(in, "too large", len(b), depth)
	}
	return in
}

// shapeOf describes an input without its values: why it was omitted, its
// size in bytes, its depth and the type and size of each top-level key.
func shapeOf(in map[string]any, why string, size, depth int) map[string]any {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	shape := map[string]any{}
	for i, k := range keys {
		if i == maxShapeKeys {
			shape["..."] = fmt.Sprintf("%d more keys", len(keys)-i)
			break
		}
		name := k
		if r := []rune(k); len(r) > maxShapeKey {
			name = string(r[:maxShapeKey]) + "..."
		}
		shape[name] = typeOf(in[k])
	}
	return map[string]any{"_omitted": why, "bytes": size, "depth": depth, "keys": shape}
}

// typeOf names a JSON value's type and size: string(12), array(3),
// object(2 keys), number, boolean, null.
func typeOf(v any) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("string(%d)", len([]rune(t)))
	case []any:
		return fmt.Sprintf("array(%d)", len(t))
	case map[string]any:
		return fmt.Sprintf("object(%d keys)", len(t))
	case float64, json.Number, int, int64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// depthOf is the nesting depth of a decoded JSON value (a scalar is 0).
func depthOf(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, vv := range t {
			d = max(d, depthOf(vv))
		}
		return d + 1
	case []any:
		for _, vv := range t {
			d = max(d, depthOf(vv))
		}
		return d + 1
	}
	return 0
}

// boundError keeps an error's code, a message cut to maxErrorMessage and
// details only when they are small and shallow; every string is scrubbed
// of the withheld values and of secrets Mask detects.
func boundError(e *OutcomeError, secrets []string, maxBytes int) {
	if e == nil {
		return
	}
	e.Message = redact.Scrub(e.Message, secrets)
	if r := []rune(e.Message); len(r) > maxErrorMessage {
		e.Message = string(r[:maxErrorMessage]) + "..."
	}
	if e.Details == nil {
		return
	}
	b, _ := json.Marshal(e.Details)
	if depth := depthOf(map[string]any(e.Details)); len(b) > maxBytes/8 || depth > maxStoredDepth {
		e.Details = map[string]any{"_omitted": "too large", "bytes": len(b), "depth": depth}
		return
	}
	e.Details, _ = redact.ScrubValue(e.Details, secrets).(map[string]any)
}

// maskObservation masks on-screen secrets (recovery phrases and keys shown
// on the page, the text of an element whose testid names a secret) in an
// observation before it is stored. It works on copies of the lists: the
// caller's observation (which may also be a tool's answer) is untouched.
func maskObservation(o *observation.Observation) {
	o.TestIDs = slices.Clone(o.TestIDs)
	o.A11y.Nodes = slices.Clone(o.A11y.Nodes)
	for i := range o.A11y.Nodes {
		o.A11y.Nodes[i].Path = slices.Clone(o.A11y.Nodes[i].Path)
	}
	o.State.CurrentURL = redact.Mask(o.State.CurrentURL)
	for i := range o.TestIDs {
		it := &o.TestIDs[i]
		if it.Text != "" && redact.SecretName(it.TestID) {
			it.Text = redact.Placeholder(it.Text)
			continue
		}
		it.Text = redact.Mask(it.Text)
	}
	for i := range o.A11y.Nodes {
		n := &o.A11y.Nodes[i]
		n.Name = redact.Mask(n.Name)
		for j, p := range n.Path {
			n.Path[j] = redact.Mask(p)
		}
	}
}

// shrinkObservation halves the tree, then the testids, of an observation
// that makes a record too large; it reports false when nothing is left to
// remove.
func shrinkObservation(o *observation.Observation) bool {
	switch {
	case len(o.A11y.Nodes) > 0:
		o.A11y.Nodes = o.A11y.Nodes[:len(o.A11y.Nodes)/2]
	case len(o.TestIDs) > 0:
		o.TestIDs = o.TestIDs[:len(o.TestIDs)/2]
	default:
		return false
	}
	return true
}

// isRejected reports an outcome that refused the input.
func isRejected(o Outcome) bool {
	return o.Error != nil && o.Error.Code == sdk.CodeInvalidInput
}
