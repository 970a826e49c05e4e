// Package cli is mmcp's command line, the whole of cmd/mmcp: Main parses
// the global flags (which may stand anywhere on the line) into a
// config.Config and runs one registered Command. With no command it serves
// MCP over stdio, what an MCP client runs.
//
// Each command's file registers it in init with RegisterCommand (name,
// usage, one line, its own flags, its Func); `mmcp help`, the dispatch and
// each command's --help all come from that registry. The commands: serve
// (stdio, or --http with serve.json and the HTTP guard), call, tools,
// replay and gen (a client of a running or spawned host), plugins, doctor,
// demo, test and flow export (flow files), visual approve, knowledge
// migrate|push|pull, help and version.
package cli
