// Package toolschema reads a tool's input schema as the server sent it,
// for the client's registry hash and the code generator alike.
package toolschema

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// Raw is t's input schema as JSON: the raw schema the server sent, or the
// structured one encoded.
func Raw(t mcp.Tool) (json.RawMessage, error) {
	if t.RawInputSchema != nil {
		return t.RawInputSchema, nil
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: encode input schema: %w", t.Name, err)
	}
	return b, nil
}
