package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// idObserver keeps the CallID of every observation it prepares.
type idObserver struct{ ids []uint64 }

func (o *idObserver) SessionID(context.Context) string { return "mm-test" }
func (o *idObserver) Observe(ctx context.Context, _ bool, _ string) func(context.Context) *observation.Observation {
	o.ids = append(o.ids, CallID(ctx))
	return func(context.Context) *observation.Observation { return &observation.Observation{} }
}

// TestCallIDSharedByHandlerAndRecord: a call's handler and its record's
// observation see the same CallID, and the next call another one, so what
// a handler starts for its record (a state read ahead) is never taken by
// another call's record.
func TestCallIDSharedByHandlerAndRecord(t *testing.T) {
	r := NewRunner(nil)
	obs := &idObserver{}
	r.SetObserver(obs)
	r.SetRecorder(&fakeRecorder{})
	var handled []uint64
	if err := r.Add(&Tool{Name: "mm_look", Observe: true, Record: true, Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *Call) (any, error) {
			handled = append(handled, CallID(ctx))
			return struct{}{}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if env := run(r, "mm_look", `{}`); !env.OK {
			t.Fatalf("look: %+v", env)
		}
	}
	r.Settle()
	if len(handled) != 2 || len(obs.ids) != 2 {
		t.Fatalf("handled %v, observed %v: want two of each", handled, obs.ids)
	}
	for i := range handled {
		if handled[i] == 0 || handled[i] != obs.ids[i] {
			t.Fatalf("call %d: handler's id %d, its record's %d; want the same, not 0", i, handled[i], obs.ids[i])
		}
	}
	if handled[0] == handled[1] {
		t.Fatalf("two calls share the id %d", handled[0])
	}
	if CallID(context.Background()) != 0 {
		t.Fatal("a context outside any call has an id")
	}
}

// TestChangesCountsWhatMayChange: a call that may change the page, the
// wallet or the chain (not read-only, a plugin's tool included) moves
// Changes as it starts and as it ends; a read-only call does not, so a
// state read made meanwhile may still serve a read-only call's record.
func TestChangesCountsWhatMayChange(t *testing.T) {
	r := NewRunner(nil)
	r.SetObserver(&idObserver{})
	r.SetRecorder(&fakeRecorder{})
	var during uint64
	for _, tool := range []*Tool{
		{Name: "mm_look", ReadOnly: func(func(any) error) bool { return true }},
		{Name: "mm_press"},
		{Name: "chain_mine", NoSession: true},
	} {
		tool.Observe, tool.Record, tool.Schema = true, true, json.RawMessage(`{"type":"object"}`)
		tool.Handler = func(context.Context, *Call) (any, error) {
			during = Changes()
			return struct{}{}, nil
		}
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		tool   string
		moved  uint64 // by the whole call
		before uint64 // by its start, seen by its handler
	}{
		{"mm_look", 0, 0},
		{"mm_press", 2, 1},
		{"chain_mine", 2, 1},
		{"mm_look", 0, 0},
	} {
		start := Changes()
		if env := run(r, c.tool, `{}`); !env.OK {
			t.Fatalf("%s: %+v", c.tool, env)
		}
		r.Settle()
		if got := Changes() - start; got != c.moved || during-start != c.before {
			t.Fatalf("%s moved Changes by %d (%d as it ran); want %d (%d)", c.tool, got, during-start, c.moved, c.before)
		}
	}
}
