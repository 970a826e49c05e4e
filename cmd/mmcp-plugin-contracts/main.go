// Command mmcp-plugin-contracts is the built-in ContractSeeding capability
// of mmcp: MetaMask's nine test contracts and any Foundry or Hardhat
// artifact, deployed to the local chain.
package main

import (
	"github.com/mmcp-dev/mmcp/plugins/contracts"
	"github.com/mmcp-dev/mmcp/sdk"
)

func main() { sdk.Main(contracts.New(sdk.Logger("contracts"))) }
