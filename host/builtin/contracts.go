package builtin

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// contractTools are mm_seed_contract, mm_seed_contracts,
// mm_get_contract_address and mm_list_contracts: contract seeding on the
// session's chain through the ContractSeeding capability.
func (g *reg) contractTools() {
	add(g, "seed_contract", tools.Tool{
		Description: "Deploy one test contract to the session's local chain: hst, nfts, erc1155, piggybank, failing, multisig, entrypoint, simpleAccountFactory, verifyingPaymaster, or a Foundry/Hardhat artifact by name. Returns its address.",
		Record:      true,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		ContractName string `json:"contractName"`
		sdk.DeployOptions
	}) (any, error) {
		return g.Sessions.SeedContract(ctx, in.ContractName, in.DeployOptions)
	})
	add(g, "seed_contracts", tools.Tool{
		Description: "Deploy several test contracts in order to the session's local chain; goes on past a failure and reports it in failed[].",
		Record:      true,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		Contracts []string `json:"contracts"`
		Hardfork  string   `json:"hardfork"`
	}) (any, error) {
		return g.Sessions.SeedContracts(ctx, in.Contracts, sdk.DeployOptions{Hardfork: in.Hardfork})
	})
	add(g, "get_contract_address", tools.Tool{
		Description: "The address of a contract deployed in this session (the latest deployment of that name), or null.",
		Record:      true,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		ContractName string `json:"contractName"`
	}) (any, error) {
		return g.Sessions.ContractAddress(ctx, in.ContractName)
	})
	add(g, "list_contracts", tools.Tool{
		Description: "The contracts deployed in this session, oldest first (a re-deployed name appears once per deployment).",
		Record:      true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		return g.Sessions.ListContracts(ctx)
	})
}
