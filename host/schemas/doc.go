// Package schemas holds the exact input schemas of the host's tools, as the
// specs give them, one JSON file per tool named after the tool without its
// prefix (build.json is mm_build's).
package schemas

import (
	"embed"
	"encoding/json"
	"fmt"
)

//go:embed *.json
var files embed.FS

// Get returns the schema of tool name (without prefix). It panics for an
// unknown name: schemas are part of the binary.
func Get(name string) json.RawMessage {
	b, err := files.ReadFile(name + ".json")
	if err != nil {
		panic(fmt.Sprintf("no schema for tool %s", name))
	}
	return b
}
