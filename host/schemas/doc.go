// Package schemas holds the exact input schemas of the host's tools, as the
// specs give them, one JSON file per tool named after the tool without its
// prefix (build.json is mm_build's). The only additions are maxLength
// bounds on targets and names (a11yRef 16, testId 256, selectors 1024,
// URLs 2048, names and tags 128, hardfork 32, extensionPath 4096), so that
// a huge value is refused before it is used or echoed.
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
