// Package host is the mmcp host: the MCP server that owns the browser
// session, starts the capability plugins and runs every tool call through
// one runner (package tools). cmd/mmcp is a thin main around Run and the
// subcommands here.
package host
