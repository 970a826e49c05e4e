package builtin

import (
	"context"
	"strings"

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
	}, onChain(g, func(ctx context.Context, rpcURL string, cs sdk.ContractSeeder, in struct {
		ContractName string `json:"contractName"`
		sdk.DeployOptions
	}) (any, error) {
		res, err := cs.Deploy(ctx, sdk.DeployRequest{RPCURL: rpcURL, Name: in.ContractName, Options: in.DeployOptions})
		if err != nil {
			return nil, err
		}
		return contractView(res.Deployment), nil
	}))
	add(g, "seed_contracts", tools.Tool{
		Description: "Deploy several test contracts in order to the session's local chain; goes on past a failure and reports it in failed[].",
		Record:      true,
	}, onChain(g, func(ctx context.Context, rpcURL string, cs sdk.ContractSeeder, in struct {
		Contracts []string `json:"contracts"`
		Hardfork  string   `json:"hardfork"`
	}) (any, error) {
		res, err := cs.DeployMany(ctx, sdk.DeployManyRequest{RPCURL: rpcURL, Names: in.Contracts, Options: sdk.DeployOptions{Hardfork: in.Hardfork}})
		if err != nil {
			return nil, err
		}
		deployed := make([]map[string]string, 0, len(res.Deployed))
		for _, d := range res.Deployed {
			deployed = append(deployed, contractView(d))
		}
		failed := res.Failed
		if failed == nil {
			failed = []sdk.DeployFailure{}
		}
		return map[string]any{"deployed": deployed, "failed": failed}, nil
	}))
	add(g, "get_contract_address", tools.Tool{
		Description: "The address of a contract deployed in this session (the latest deployment of that name), or null.",
		Record:      true,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		ContractName string `json:"contractName"`
	}) (any, error) {
		ds, err := g.deployments(ctx)
		if err != nil {
			return nil, err
		}
		var addr any
		for _, d := range ds {
			if strings.EqualFold(d.ContractName, in.ContractName) {
				addr = d.ContractAddress
			}
		}
		return map[string]any{"contractName": in.ContractName, "contractAddress": addr}, nil
	})
	add(g, "list_contracts", tools.Tool{
		Description: "The contracts deployed in this session, oldest first (a re-deployed name appears once per deployment).",
		Record:      true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		ds, err := g.deployments(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]map[string]string, 0, len(ds))
		for _, d := range ds {
			out = append(out, contractView(d))
		}
		return map[string]any{"contracts": out}, nil
	})
}

// onChain is the handler of a seeding tool: the call's session must run a
// live chain (session.Manager.Seeding).
func onChain[In any](g *reg, fn func(ctx context.Context, rpcURL string, cs sdk.ContractSeeder, in In) (any, error)) func(context.Context, *tools.Call, In) (any, error) {
	return func(ctx context.Context, _ *tools.Call, in In) (any, error) {
		s, err := g.Sessions.Active(ctx)
		if err != nil {
			return nil, err
		}
		cs, rpcURL, err := g.Sessions.Seeding(ctx, s)
		if err != nil {
			return nil, err
		}
		return fn(ctx, rpcURL, cs, in)
	}
}

// deployments lists the session's deployments, oldest first.
func (g *reg) deployments(ctx context.Context) ([]sdk.Deployment, error) {
	s, err := g.Sessions.Active(ctx)
	if err != nil {
		return nil, err
	}
	return g.Sessions.Deployed(ctx, s)
}

// contractView is a deployment as the tools answer it.
func contractView(d sdk.Deployment) map[string]string {
	return map[string]string{"contractName": d.ContractName, "contractAddress": d.ContractAddress, "deployedAt": d.DeployedAt}
}
