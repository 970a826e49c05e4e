package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// idObserver keeps the CallID of every observation it prepares, and
// whether its call was read-only.
type idObserver struct {
	ids      []uint64
	readOnly []bool
}

func (o *idObserver) SessionID(context.Context) string { return "mm-test" }
func (o *idObserver) Observe(ctx context.Context, _ bool, _ string) func(context.Context) *observation.Observation {
	o.ids = append(o.ids, CallID(ctx))
	o.readOnly = append(o.readOnly, CallReadOnly(ctx))
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

// TestCallReadOnlyMarksTheRecord: a record's observation knows whether
// its call was read-only (Runner.ReadOnly), so the session may take a
// state read made before it only after calls that changed nothing.
func TestCallReadOnlyMarksTheRecord(t *testing.T) {
	r := NewRunner(nil)
	obs := &idObserver{}
	r.SetObserver(obs)
	r.SetRecorder(&fakeRecorder{})
	var handled []bool
	for _, tool := range []*Tool{
		{Name: "mm_look", ReadOnly: func(func(any) error) bool { return true }},
		{Name: "mm_press"},
	} {
		tool.Observe, tool.Record, tool.Schema = true, true, json.RawMessage(`{"type":"object"}`)
		tool.Handler = func(ctx context.Context, _ *Call) (any, error) {
			handled = append(handled, CallReadOnly(ctx))
			return struct{}{}, nil
		}
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"mm_look", "mm_press", "mm_look"} {
		if env := run(r, tool, `{}`); !env.OK {
			t.Fatalf("%s: %+v", tool, env)
		}
	}
	r.Settle()
	want := []bool{true, false, true}
	for i := range want {
		if i >= len(handled) || i >= len(obs.readOnly) || handled[i] != want[i] || obs.readOnly[i] != want[i] {
			t.Fatalf("read-only seen by the handlers %v and the records %v; want %v", handled, obs.readOnly, want)
		}
	}
	if CallReadOnly(context.Background()) {
		t.Fatal("a context outside any call is read-only")
	}
}
