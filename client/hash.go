package client

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mmcp-dev/mmcp/client/internal/toolschema"

	"github.com/mark3labs/mcp-go/mcp"
)

// RegistryHash is the content hash of a tool registry, the same a
// TypeScript client computes:
//
//	const canonical = tools
//	  .map(t => ({ name: t.name, inputSchema: t.inputSchema }))
//	  .sort((a, b) => a.name.localeCompare(b.name));
//	return createHash('sha1').update(JSON.stringify(canonical)).digest('hex').slice(0, 12);
//
// over the tools as the official TypeScript SDK's client.listTools()
// delivers them: each schema's keys in the server's order as JSON.parse
// keeps them (integer-like keys first, ascending, then the others as
// written), except that the SDK's Tool schema puts an inputSchema's own
// type, properties and required first (schemaFirst); numbers and strings
// as JSON.stringify writes them; the tools in localeCompare's order (the
// root collation). Each schema is hashed as received (RawInputSchema:
// ListToolsRaw keeps it), never normalized through mcp-go's structs, which
// drop what they do not model. Renaming a tool, changing a schema or
// swapping two tools all change the hash.
func RegistryHash(tools []mcp.Tool) string {
	type entry struct {
		name   string
		schema []byte // JSON.stringify of the schema; nil when absent
	}
	entries := make([]entry, 0, len(tools))
	for _, t := range tools {
		schema, err := stringifySchema(t)
		if err != nil {
			schema = []byte(`{"$error":` + jsString(err.Error()) + `}`)
		}
		entries = append(entries, entry{t.Name, schema})
	}
	coll := collate.New(language.Und)
	sort.SliceStable(entries, func(i, j int) bool { return coll.CompareString(entries[i].name, entries[j].name) < 0 })
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range entries {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"name":` + jsString(e.name))
		if e.schema != nil {
			buf.WriteString(`,"inputSchema":`)
			buf.Write(e.schema)
		}
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
	sum := sha1.Sum(buf.Bytes())
	return hex.EncodeToString(sum[:])[:12]
}

// stringifySchema is JSON.stringify(JSON.parse(schema)) of t's input
// schema as received.
func stringifySchema(t mcp.Tool) ([]byte, error) {
	raw, err := toolschema.Raw(t)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	out, err := jsValue(d, schemaFirst)
	if err != nil {
		return nil, fmt.Errorf("tool %s: decode input schema: %w", t.Name, err)
	}
	return out, nil
}

// schemaFirst are the keys the TypeScript SDK's Tool schema (zod) puts
// first in an inputSchema it parses, in this order; the others follow as
// the server wrote them.
var schemaFirst = []string{"type", "properties", "required"}

// jsValue reads one JSON value from d and writes it as JSON.stringify
// would after JSON.parse; an object's keys named in first come before its
// other (not integer-like) keys.
func jsValue(d *json.Decoder, first []string) ([]byte, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			out := []byte{'['}
			for i := 0; d.More(); i++ {
				if i > 0 {
					out = append(out, ',')
				}
				e, err := jsValue(d, nil)
				if err != nil {
					return nil, err
				}
				out = append(out, e...)
			}
			_, err := d.Token() // ]
			return append(out, ']'), err
		}
		type member struct {
			key string
			val []byte
		}
		var members []member
		at := map[string]int{}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			val, err := jsValue(d, nil)
			if err != nil {
				return nil, err
			}
			if i, dup := at[k]; dup {
				members[i].val = val // JSON.parse: the last value, the first place
				continue
			}
			at[k] = len(members)
			members = append(members, member{k, val})
		}
		if _, err := d.Token(); err != nil { // }
			return nil, err
		}
		// A JS object lists its integer-like keys first, ascending; then
		// the keys of first, then the others as written.
		rank := func(k string) (int, uint64) {
			if n, ok := arrayIndex(k); ok {
				return 0, n
			}
			if i := slices.Index(first, k); i >= 0 {
				return 1, uint64(i)
			}
			return 2, 0
		}
		sort.SliceStable(members, func(i, j int) bool {
			ri, ni := rank(members[i].key)
			rj, nj := rank(members[j].key)
			return ri < rj || ri == rj && ni < nj
		})
		out := []byte{'{'}
		for i, m := range members {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, jsString(m.key)...)
			out = append(out, ':')
			out = append(out, m.val...)
		}
		return append(out, '}'), nil
	case string:
		return []byte(jsString(v)), nil
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return nil, err
		}
		return []byte(jsNumber(f)), nil
	case bool:
		return []byte(strconv.FormatBool(v)), nil
	default: // nil
		return []byte("null"), nil
	}
}

// arrayIndex reports whether k is an array index (a canonical integer
// below 2^32-1), which a JS object orders before its other keys.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 1 && k[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return n, err == nil && n < 1<<32-1
}

// jsString is JSON.stringify of a string: only the quote, the backslash
// and control characters are escaped.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsNumber is JSON.stringify of a number (Number.prototype.toString):
// the shortest form that reads back, in exponent form below 1e-6 and from
// 1e21 on.
func jsNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e-07, 1.5e+21
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
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
