package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// TestAddAppliesSchemaDefaults: a tool defined with Add gets its input
// decoded with the schema's defaults for what the call leaves out, the
// call's own values win, and the record keeps the input as it was given.
func TestAddAppliesSchemaDefaults(t *testing.T) {
	r := NewRunner(nil)
	rec := &fakeRecorder{}
	r.SetRecorder(rec)
	r.SetObserver(&fakeObserver{})
	type in struct {
		TimeoutMs int    `json:"timeoutMs"`
		Mode      string `json:"mode"`
		Name      string `json:"name"`
	}
	err := Add(r, Tool{Name: "mm_probe", Record: true, Label: "interaction",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"timeoutMs":{"type":"integer","default":15000},
			"mode":{"type":"string","default":"all"},
			"name":{"type":"string"}}}`),
	}, func(_ context.Context, _ *Call, v in) (any, error) { return v, nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		want in
	}{
		{`{}`, in{TimeoutMs: 15000, Mode: "all"}},
		{`{"timeoutMs":0,"name":"x"}`, in{TimeoutMs: 0, Mode: "all", Name: "x"}},
		{`{"mode":"none"}`, in{TimeoutMs: 15000, Mode: "none"}},
	} {
		out := r.Run(context.Background(), Request{Tool: "mm_probe", Args: json.RawMessage(tc.args)})
		if !out.Envelope.OK || out.Envelope.Result.(in) != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.args, out.Envelope.Result, tc.want)
		}
	}
	r.Settle()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.steps) != 3 || string(rec.steps[0].Input) != `{}` || rec.steps[0].Label != "interaction" {
		t.Fatalf("records: %d, first input %s label %q; want the input as given and the tool's label", len(rec.steps), rec.steps[0].Input, rec.steps[0].Label)
	}
}
