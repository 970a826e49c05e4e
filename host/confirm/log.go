package confirm

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/internal/redact"
)

// The requests log: every EIP-1193 request the dapps of one browser made
// through window.ethereum or an EIP-6963 provider, as they made them and
// as they were answered, reported by the page (discovery.CaptureProvider)
// one event at a time.

// MaxRequests bounds the log of one browser (the oldest go first).
const MaxRequests = 500

// maxParams bounds the params or result kept of one request, in bytes of
// JSON; a longer one is kept as null with Truncated set.
const maxParams = 64 << 10

// Request is one EIP-1193 request as the dapp made it.
type Request struct {
	// ID is the capture's own id (unique per document and call).
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// Origin is the requesting page's origin; URL its address.
	Origin string `json:"origin"`
	URL    string `json:"url,omitempty"`
	// Via is the provider: "window.ethereum" or "eip6963:<rdns>".
	Via string `json:"via,omitempty"`
	// Result or Error is the answer the dapp received; neither while the
	// request is pending.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
	// Truncated says params or result were longer than the log keeps.
	Truncated bool `json:"truncated,omitempty"`
	// Abandoned says the page that asked went away (navigated, reloaded,
	// closed) before it had an answer: no wallet answer can reach it.
	Abandoned bool      `json:"abandoned,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	// doc is the document that asked (AddFrom), "" when unknown.
	doc string
}

// RPCError is an EIP-1193 error as the dapp received it.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Answered reports whether the dapp has its answer.
func (r Request) Answered() bool { return r.Result != nil || r.Error != nil }

// Settled reports whether the request waits for nothing any more: it has
// its answer, or its page went away.
func (r Request) Settled() bool { return r.Answered() || r.Abandoned }

// DurationMs is the time from the call to its answer, 0 while pending.
func (r Request) DurationMs() int64 {
	if r.Ended.IsZero() {
		return 0
	}
	return r.Ended.Sub(r.Started).Milliseconds()
}

// event is what the page reports: a call, then its result or error.
type event struct {
	ID     string          `json:"id"`
	Phase  string          `json:"phase"` // call, result, error
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Origin string          `json:"origin"`
	URL    string          `json:"url"`
	Via    string          `json:"via"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
	T      int64           `json:"t"` // ms since the epoch, the page's clock
}

// Log is the bounded requests log of one browser. Its zero value is not
// usable: use NewLog.
type Log struct {
	mu      sync.Mutex
	order   []string
	byID    map[string]*Request
	changed chan struct{} // closed and replaced on every change
}

// NewLog returns an empty log.
func NewLog() *Log {
	return &Log{byID: map[string]*Request{}, changed: make(chan struct{})}
}

// Add takes one event a page reported (JSON) from a document AddFrom
// would not know; a malformed one is dropped.
func (l *Log) Add(payload string) { l.AddFrom("", payload) }

// AddFrom takes one event the document doc reported (JSON): doc names it
// as Gone will ("<page>/<context>"); a malformed event is dropped.
func (l *Log) AddFrom(doc, payload string) {
	var ev event
	if json.Unmarshal([]byte(payload), &ev) != nil || ev.ID == "" {
		return
	}
	at := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.byID[ev.ID]
	switch ev.Phase {
	case "call":
		if ok {
			return
		}
		r = &Request{ID: ev.ID, Method: ev.Method, Origin: ev.Origin, URL: ev.URL, Via: ev.Via, Started: at, doc: doc}
		r.Params, r.Truncated = keep(ev.Params)
		l.byID[ev.ID] = r
		l.order = append(l.order, ev.ID)
		if len(l.order) > MaxRequests {
			delete(l.byID, l.order[0])
			l.order = l.order[1:]
		}
	case "result", "error":
		if !ok || r.Answered() {
			return
		}
		r.Ended, r.Abandoned = at, false
		if ev.Phase == "error" {
			if ev.Error == nil {
				ev.Error = &RPCError{}
			}
			ev.Error.Message = redact.Mask(ev.Error.Message)
			r.Error = ev.Error
		} else {
			var cut bool
			if r.Result, cut = keep(ev.Result); r.Result == nil {
				r.Result = json.RawMessage("null")
			}
			r.Truncated = r.Truncated || cut
		}
	default:
		return
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// keep is raw as the log keeps it: masked of anything shaped like a
// secret (package redact's rule on every string), at most maxParams.
func keep(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	if len(raw) > maxParams {
		return nil, true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, true
	}
	b, err := json.Marshal(maskAll(v))
	if err != nil {
		return nil, true
	}
	return b, false
}

// maskAll applies redact.Mask to every string in v, but leaves hex data
// (transaction data, hashes, signatures: the dapp's own) as it is.
func maskAll(v any) any {
	switch x := v.(type) {
	case string:
		if isHex(x) {
			return x
		}
		return redact.Mask(x)
	case []any:
		for i := range x {
			x[i] = maskAll(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = maskAll(x[k])
		}
	}
	return v
}

// Gone marks the requests of a document that went away, still without
// an answer, as abandoned: doc is a document as AddFrom names it, or a
// page's prefix ("<page>/") for all of its documents.
func (l *Log) Gone(doc string) {
	if doc == "" {
		return
	}
	at := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, id := range l.order {
		r := l.byID[id]
		if r.doc == "" || r.Settled() || !(r.doc == doc || (strings.HasSuffix(doc, "/") && strings.HasPrefix(r.doc, doc))) {
			continue
		}
		r.Abandoned, r.Ended = true, at
		n++
	}
	if n > 0 {
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

// All is a copy of the log, oldest first.
func (l *Log) All() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Request, 0, len(l.order))
	for _, id := range l.order {
		out = append(out, *l.byID[id])
	}
	return out
}

// Get is the request id.
func (l *Log) Get(id string) (Request, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.byID[id]
	if !ok {
		return Request{}, false
	}
	return *r, true
}

// Pending lists the requests still waiting for their answer whose method
// needs the user's approval, oldest first: not the ones whose page went
// away.
func (l *Log) Pending() []Request {
	var out []Request
	for _, r := range l.All() {
		if !r.Settled() && NeedsApproval(r.Method) {
			out = append(out, r)
		}
	}
	return out
}

// WaitAnswered waits until request id has its answer or its page went
// away (Settled), within ctx.
func (l *Log) WaitAnswered(ctx context.Context, id string) (Request, error) {
	for {
		l.mu.Lock()
		r, ok := l.byID[id]
		var cp Request
		if ok {
			cp = *r
		}
		ch := l.changed
		l.mu.Unlock()
		if ok && cp.Settled() {
			return cp, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return cp, ctx.Err()
		}
	}
}
