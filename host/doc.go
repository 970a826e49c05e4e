// Package host is the mmcp host: the MCP server that owns the wallet
// sessions, starts the capability plugins and runs every tool call through
// one runner (package tools). New assembles a Host from a resolved
// config.Config (plugins, knowledge store, session manager, runner,
// built-in tools), Start starts its plugins, ServeStdio serves MCP over
// stdio and MCPServer is the server the HTTP transport of host/cli serves;
// Close ends it all. cmd/mmcp is a thin main around host/cli's Main.
package host
