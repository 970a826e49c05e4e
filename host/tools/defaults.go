package tools

import (
	"encoding/json"
	"fmt"
)

// schemaDefaults collects the "default" of each top-level property of an
// object schema into one JSON object ({"timeoutMs":15000}), or nil when
// there is none.
func schemaDefaults(schema json.RawMessage) (json.RawMessage, error) {
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
