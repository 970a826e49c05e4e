package client

import (
	"encoding/json"
	"fmt"
)

// ArgsMap converts a generated args struct (or any JSON-encodable value) to
// the map a tool call takes; fields marked omitempty that are unset are left
// out. Nil gives an empty map.
func ArgsMap(v any) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("arguments must encode to a JSON object: %w", err)
	}
	return m, nil
}
