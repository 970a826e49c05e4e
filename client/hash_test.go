package client

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func hashFixture() []mcp.Tool {
	return []mcp.Tool{
		{Name: "b.tool", InputSchema: mcp.ToolInputSchema{
			Type: "object",
			Properties: map[string]any{
				"z": map[string]any{"type": "string", "description": "<b>&"},
				"a": map[string]any{"type": "integer", "minimum": 1},
			},
			Required: []string{"z"},
		}},
		{Name: "a_tool", RawInputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number","enum":[1.5,2]}},"additionalProperties":false}`)},
		{Name: "a.tool", InputSchema: mcp.ToolInputSchema{Type: "object"}},
	}
}

func TestRegistryHash(t *testing.T) {
	t.Parallel()
	// Computed independently with node (v18+), once:
	//   const sortKeys = v => Array.isArray(v) ? v.map(sortKeys)
	//     : (v && typeof v === 'object') ? Object.fromEntries(Object.keys(v).sort().map(k => [k, sortKeys(v[k])])) : v;
	//   const tools = [
	//     {name:'b.tool', inputSchema:{type:'object', properties:{z:{type:'string',description:'<b>&'}, a:{type:'integer',minimum:1}}, required:['z']}},
	//     {name:'a_tool', inputSchema:{type:'object', properties:{x:{type:'number',enum:[1.5,2]}}, additionalProperties:false}},
	//     {name:'a.tool', inputSchema:{type:'object', properties:{}, required:[]}}];
	//   const canon = tools.map(t => ({name:t.name, inputSchema:t.inputSchema})).sort((a,b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
	//   crypto.createHash('sha1').update(JSON.stringify(sortKeys(canon))).digest('hex').slice(0,12)
	// (a raw schema is hashed as written; mcp-go's struct always encodes
	// "properties" and "required", hence the empty ones of a.tool.)
	const want = "ab9488a1d813"
	tools := hashFixture()
	if got := RegistryHash(tools); got != want {
		t.Fatalf("RegistryHash = %s, want %s", got, want)
	}
	// Order of the tools does not matter.
	rev := []mcp.Tool{tools[2], tools[0], tools[1]}
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
