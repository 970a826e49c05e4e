// Command mmcp-plugin-chain is the built-in Chain capability of mmcp: a
// local Anvil node driven with go-ethereum.
package main

import (
	"github.com/mmcp-dev/mmcp/plugins/chain"
	"github.com/mmcp-dev/mmcp/sdk"
)

func main() { sdk.Main(chain.New(sdk.Logger("chain"))) }
