package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func greetSet() *ToolSet {
	ts := &ToolSet{}
	type in struct {
		Name  string `json:"name"`
		Times int    `json:"times"`
	}
	AddTool(ts, "greet", "Greet someone.",
		`{"type":"object","properties":{"name":{"type":"string","minLength":1},"times":{"type":"integer","minimum":1,"default":2}},"required":["name"],"additionalProperties":false}`,
		func(_ context.Context, in in, ev Events) (any, error) {
			ev.Log("info", "greeting "+in.Name)
			return in, nil
		})
	return ts
}

func codeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestToolSetAppliesDefaultsAndValidates: a call gets the schema's
// defaults for what it leaves out, and arguments the schema refuses answer
// MM_INVALID_INPUT naming the field before the handler runs.
func TestToolSetAppliesDefaultsAndValidates(t *testing.T) {
	ts := greetSet()
	if len(ts.Tools()) != 1 || ts.Tools()[0].Name != "greet" {
		t.Fatalf("tools %+v", ts.Tools())
	}
	out, err := callTool(ts, "greet", json.RawMessage(`{"name":"ann"}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(out); string(b) != `{"name":"ann","times":2}` {
		t.Fatalf("result %s", b)
	}
	out, _ = callTool(ts, "greet", json.RawMessage(`{"name":"ann","times":5}`))
	if b, _ := json.Marshal(out); string(b) != `{"name":"ann","times":5}` {
		t.Fatalf("given value lost to the default: %s", b)
	}
	for _, args := range []string{`{}`, `{"name":""}`, `{"name":"a","times":0}`, `{"name":"a","extra":1}`, `not json`} {
		_, err := callTool(ts, "greet", json.RawMessage(args))
		if codeOf(err) != CodeInvalidInput {
			t.Errorf("%s: %v, want %s", args, err, CodeInvalidInput)
		}
	}
	var e *Error
	_, err = callTool(ts, "greet", json.RawMessage(`{"name":"a","times":0}`))
	if errors.As(err, &e); e.Details["field"] != "times" {
		t.Errorf("details %v do not name the field", e.Details)
	}
	if _, err := callTool(ts, "nope", nil); codeOf(err) != CodeInvalidInput {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestAddToolRefusesMistakes(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	noop := func(context.Context, struct{}, Events) (any, error) { return nil, nil }
	mustPanic("not an object schema", func() { AddTool(&ToolSet{}, "x", "", `{"type":"string"}`, noop) })
	mustPanic("not JSON", func() { AddTool(&ToolSet{}, "x", "", `{`, noop) })
	mustPanic("twice", func() {
		ts := &ToolSet{}
		AddTool(ts, "x", "", `{"type":"object"}`, noop)
		AddTool(ts, "x", "", `{"type":"object"}`, noop)
	})
}

// callTool calls ts's tool name with args and answers its result.
func callTool(ts *ToolSet, name string, args json.RawMessage) (any, error) {
	r, err := ts.CallTool(context.Background(), CallToolRequest{Name: name, Arguments: args}, nil)
	return r.Result, err
}
