package sdk

import (
	"context"
	"encoding/json"
	"fmt"
)

// ToolSet is a plugin's MCP tools, each defined once: its name, its
// description, its input schema and a typed handler. A plugin that keeps
// one (and returns its Tools and CallTool) implements ToolProvider
// without a hand-written router:
//
//	type Plugin struct{ sdk.ToolSet; ... }
//
//	func New() *Plugin {
//		p := &Plugin{}
//		sdk.AddTool(&p.ToolSet, "greet", "Greet someone.",
//			`{"type":"object","properties":{"name":{"type":"string","default":"world"}},"additionalProperties":false}`,
//			func(ctx context.Context, in struct{ Name string `json:"name"` }, ev sdk.Events) (any, error) {
//				return map[string]string{"greeting": "hello, " + in.Name}, nil
//			})
//		return p
//	}
//
// Calls are handled as the host handles its built-in tools: the arguments
// are checked against the schema (MM_INVALID_INPUT naming the field), the
// schema's top-level defaults fill what the call leaves out, and the
// result is decoded into the handler's input type strictly.
type ToolSet struct {
	tools []Tool
	run   map[string]func(ctx context.Context, args json.RawMessage, ev Events) (any, error)
}

// AddTool adds a tool to ts. It panics when the schema is not a valid
// object schema or the name is taken: both are mistakes in the plugin's
// code, found the first time it starts.
func AddTool[In any](ts *ToolSet, name, description, schema string, fn func(ctx context.Context, in In, ev Events) (any, error)) {
	sc, err := CompileSchema(name, json.RawMessage(schema))
	if err != nil {
		panic(fmt.Sprintf("sdk.AddTool %s: %v", name, err))
	}
	defaults, err := SchemaDefaults(json.RawMessage(schema))
	if err != nil {
		panic(fmt.Sprintf("sdk.AddTool %s: %v", name, err))
	}
	if ts.run == nil {
		ts.run = map[string]func(context.Context, json.RawMessage, Events) (any, error){}
	}
	if _, dup := ts.run[name]; dup {
		panic(fmt.Sprintf("sdk.AddTool: tool %s added twice", name))
	}
	ts.tools = append(ts.tools, Tool{Name: name, Description: description, InputSchema: json.RawMessage(schema)})
	ts.run[name] = func(ctx context.Context, args json.RawMessage, ev Events) (any, error) {
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		if err := sc.Validate(name, args); err != nil {
			return nil, err
		}
		var in In
		if err := DecodeArgs(defaults, &in); err != nil {
			return nil, err
		}
		if err := DecodeArgs(args, &in); err != nil {
			return nil, err
		}
		return fn(ctx, in, ev)
	}
}

// Tools implements ToolProvider.
func (ts *ToolSet) Tools() []Tool { return ts.tools }

// CallTool implements ToolProvider.
func (ts *ToolSet) CallTool(ctx context.Context, req CallToolRequest, ev Events) (CallToolResponse, error) {
	run, ok := ts.run[req.Name]
	if !ok {
		return CallToolResponse{}, Errorf(CodeInvalidInput, "unknown tool %q", req.Name)
	}
	if ev == nil {
		ev = NopEvents{}
	}
	v, err := run(ctx, req.Arguments, ev)
	return CallToolResponse{Result: v}, err
}

// SchemaDefaults collects the "default" of each top-level property of an
// object schema into one JSON object ({"timeoutMs":15000}), or nil when
// there is none: what a tool's input gets for an argument the call leaves
// out. The host applies it to its built-in tools, ToolSet to a plugin's.
func SchemaDefaults(schema json.RawMessage) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if len(schema) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	out := map[string]json.RawMessage{}
	for name, p := range s.Properties {
		if len(p.Default) > 0 {
			out[name] = p.Default
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return json.Marshal(out)
}
