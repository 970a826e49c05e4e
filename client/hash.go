package client

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mark3labs/mcp-go/mcp"
)

// RegistryHash is the content hash of a tool registry, spec 002's
// registryHash: the first 12 hex digits of the SHA-1 of the JSON array
// [{"inputSchema": ..., "name": ...}] sorted by name (code-unit order), with
// object keys sorted recursively (which spec 002 leaves free), no
// whitespace and no HTML escaping. A client in any language computes the
// same value over tools/list as it receives it:
//
//	const sortKeys = v => Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object'
//	  ? Object.fromEntries(Object.keys(v).sort().map(k => [k, sortKeys(v[k])])) : v;
//	sha1(JSON.stringify(tools.map(t => sortKeys({name: t.name, inputSchema: t.inputSchema}))
//	  .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0))).slice(0, 12)
//
// Each schema is hashed as received (RawInputSchema: ListToolsRaw keeps it),
// never normalized through mcp-go's structs, which drop what they do not
// model. Renaming a tool, changing a schema or swapping two tools all change
// the hash.
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

// canonicalSchema returns t's input schema as plain JSON values (maps,
// slices, json.Number literals as received), ready to be encoded with
// sorted keys.
func canonicalSchema(t mcp.Tool) (any, error) {
	raw := t.RawInputSchema
	if raw == nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encode input schema: %w", t.Name, err)
		}
		raw = b
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("tool %s: decode input schema: %w", t.Name, err)
	}
	return v, nil
}

// ListToolsRaw lists c's tools (every page) keeping each input schema as
// the server sent it (RawInputSchema), for RegistryHash and code generation.
func ListToolsRaw(ctx context.Context, c *mcpclient.Client) ([]mcp.Tool, error) {
	var out []mcp.Tool
	// Servers speaking the 2026 protocol want its version in every
	// request's _meta; older ones ignore it.
	meta := map[string]any{mcp.MetaKeyProtocolVersion: c.ProtocolVersion(), mcp.MetaKeyClientCapabilities: mcp.ClientCapabilities{}}
	params := map[string]any{"_meta": meta}
	for page := 0; ; page++ {
		resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("mmcp-tools-list-%d", page)),
			Method: string(mcp.MethodToolsList), Params: params,
			Header: http.Header{"Mcp-Method": []string{string(mcp.MethodToolsList)}},
		})
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("tools/list: %s", resp.Error.Message)
		}
		var res struct {
			Tools      json.RawMessage `json:"tools"`
			NextCursor string          `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools, err := DecodeTools(res.Tools)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out = append(out, tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		params = map[string]any{"_meta": meta, "cursor": res.NextCursor}
	}
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

// DecodeTools decodes a JSON array of tools (tools/list's "tools"), keeping
// each input schema as written (RawInputSchema).
func DecodeTools(data []byte) ([]mcp.Tool, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, err
	}
	out := make([]mcp.Tool, 0, len(raws))
	for _, raw := range raws {
		var t mcp.Tool
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		var schema struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &schema); err == nil && len(schema.InputSchema) > 0 {
			t.InputSchema = mcp.ToolInputSchema{}
			t.RawInputSchema = schema.InputSchema
		}
		out = append(out, t)
	}
	return out, nil
}
