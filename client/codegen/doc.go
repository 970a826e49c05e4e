// Package codegen renders the typed Go handle of an MCP server's tools (the
// file `mmcp gen` writes): one method per tool with an args struct
// derived from its input schema, grouped in namespaces, plus the registry
// hash that client.Connect checks for drift. Render is a pure function;
// WriteIfChanged writes its output only when something besides the
// "// Generated:" line changed.
package codegen
