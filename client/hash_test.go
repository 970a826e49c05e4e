package client

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func hashFixture() []mcp.Tool {
	return []mcp.Tool{
		// A struct schema is hashed as mcp-go encodes it (keys sorted).
		{Name: "b.tool", InputSchema: mcp.ToolInputSchema{
			Type: "object",
			Properties: map[string]any{
				"z": map[string]any{"type": "string", "description": "<b>&"},
				"a": map[string]any{"type": "integer", "minimum": 1},
			},
			Required: []string{"z"},
		}},
		{Name: "a_tool", RawInputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number","enum":[1.5,2.0,1e21,1E-7,-0.000001]}},"additionalProperties":false}`)},
		{Name: "a.tool", InputSchema: mcp.ToolInputSchema{Type: "object"}},
		// Keys in the server's order, integer-like ones first (as
		// JSON.parse orders them), a repeated key, JSON.stringify's escapes.
		{Name: "B_tool", RawInputSchema: json.RawMessage(`{"additionalProperties":false,"type":"object","properties":{"10":{"type":"string"},"2":{"type":"string"},"02":{},"k":{"description":"line\u2028sep \"q\" \\ \t \u0001 é"}},"x":1,"x":2,"7":"seven"}`)},
	}
}

// TestRegistryHash: RegistryHash as a TypeScript client computes it, with node (v20) over
// the same tools/list JSON as the official TypeScript SDK (1.32) parses it:
//
//	const { tools } = ListToolsResultSchema.parse(JSON.parse(tools_list_result));
//	const canonical = tools.map(t => ({ name: t.name, inputSchema: t.inputSchema }))
//	  .sort((a, b) => a.name.localeCompare(b.name));
//	crypto.createHash('sha1').update(JSON.stringify(canonical)).digest('hex').slice(0, 12)
//
// (for a struct schema, the JSON is what mcp-go encodes).
func TestRegistryHash(t *testing.T) {
	t.Parallel()
	const want = "aab811de323c"
	tools := hashFixture()
	if got := RegistryHash(tools); got != want {
		t.Fatalf("RegistryHash = %s, want %s", got, want)
	}
	// Order of the tools does not matter.
	rev := []mcp.Tool{tools[3], tools[2], tools[0], tools[1]}
	if got := RegistryHash(rev); got != want {
		t.Fatalf("RegistryHash(reordered) = %s, want %s", got, want)
	}
}

func TestRegistryHashDetectsChanges(t *testing.T) {
	t.Parallel()
	base := RegistryHash(hashFixture())
	cases := map[string]func([]mcp.Tool) []mcp.Tool{
		"rename": func(ts []mcp.Tool) []mcp.Tool { ts[0].Name = "c.tool"; return ts },
		"schema": func(ts []mcp.Tool) []mcp.Tool { ts[0].InputSchema.Required = nil; return ts },
		"swap names": func(ts []mcp.Tool) []mcp.Tool {
			ts[0].Name, ts[2].Name = ts[2].Name, ts[0].Name
			return ts
		},
		"added": func(ts []mcp.Tool) []mcp.Tool { return append(ts, mcp.NewTool("d")) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RegistryHash(mutate(hashFixture())); got == base {
				t.Fatalf("hash unchanged (%s)", got)
			}
		})
	}
}
