package client

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
)

// RegistryHash is the content hash of a tool registry (spec 002, "Registry
// drift detection"): the first 12 hex digits of the SHA-1 of the JSON array
// [{"inputSchema": ..., "name": ...}] sorted by name (byte order), with
// object keys sorted recursively, no whitespace and no HTML escaping.
//
// Schemas are normalized through mcp-go's ToolInputSchema first, so a
// server's raw schema and the schema a client decodes from tools/list hash
// the same. Renaming a tool, changing a schema or swapping two tools all
// change the hash.
func RegistryHash(tools []mcp.Tool) string {
	type entry struct {
		name   string
		schema any
	}
	entries := make([]entry, 0, len(tools))
	for _, t := range tools {
		var schema any
		if s, err := canonicalSchema(t); err == nil {
			schema = s
		} else {
			schema = map[string]any{"$error": err.Error()}
		}
		entries = append(entries, entry{t.Name, schema})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	list := make([]any, len(entries))
	for i, e := range entries {
		// A map, so encoding/json writes the keys sorted.
		list[i] = map[string]any{"name": e.name, "inputSchema": e.schema}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(list) // only plain JSON values: cannot fail
	sum := sha1.Sum(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:])[:12]
}

// inputSchema returns t's input schema in structured form, parsing
// RawInputSchema when the tool carries one.
func inputSchema(t mcp.Tool) (mcp.ToolInputSchema, error) {
	if t.RawInputSchema == nil {
		return t.InputSchema, nil
	}
	var s mcp.ToolInputSchema
	if err := json.Unmarshal(t.RawInputSchema, &s); err != nil {
		return s, fmt.Errorf("tool %s: parse input schema: %w", t.Name, err)
	}
	return s, nil
}

// canonicalSchema returns t's input schema as plain JSON values (maps,
// slices, float64), ready to be encoded with sorted keys.
func canonicalSchema(t mcp.Tool) (any, error) {
	s, err := inputSchema(t)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tool %s: encode input schema: %w", t.Name, err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("tool %s: decode input schema: %w", t.Name, err)
	}
	return v, nil
}
