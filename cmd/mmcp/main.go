// Command mmcp is the mmcp host: an MCP server (stdio by default) that lets
// an agent build, launch, drive and inspect a wallet extension in a real
// Chrome against a local chain. See the README for flags and commands.
package main

import (
	"os"

	"github.com/mmcp-dev/mmcp/host/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
