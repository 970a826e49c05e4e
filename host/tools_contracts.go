package host

import (
	"context"
	"strings"

	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// contractTools are mm_seed_contract, mm_seed_contracts,
// mm_get_contract_address and mm_list_contracts: contract seeding on the
// session's chain through the ContractSeeding capability.
func (h *Host) contractTools() []*tools.Tool {
	return []*tools.Tool{
		{
			Name:        h.name("seed_contract"),
			Description: "Deploy one test contract to the session's local chain: hst, nfts, erc1155, piggybank, failing, multisig, entrypoint, simpleAccountFactory, verifyingPaymaster, or a Foundry/Hardhat artifact by name. Returns its address.",
			Schema:      schemas.Get("seed_contract"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in struct {
					ContractName string `json:"contractName"`
					sdk.DeployOptions
				}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				s, err := h.seedingSession(ctx)
				if err != nil {
					return nil, err
				}
				var d sdk.Deployment
				err = h.withSeeder(ctx, s, func(cs sdk.ContractSeeder) error {
					var err error
					d, err = cs.Deploy(ctx, s.parts.Chain.RPCURL, in.ContractName, in.DeployOptions)
					return err
				})
				if err != nil {
					return nil, err
				}
				return contractView(d), nil
			},
		},
		{
			Name:        h.name("seed_contracts"),
			Description: "Deploy several test contracts in order to the session's local chain; goes on past a failure and reports it in failed[].",
			Schema:      schemas.Get("seed_contracts"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in struct {
					Contracts []string `json:"contracts"`
					Hardfork  string   `json:"hardfork"`
				}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				s, err := h.seedingSession(ctx)
				if err != nil {
					return nil, err
				}
				var res sdk.DeployManyResult
				err = h.withSeeder(ctx, s, func(cs sdk.ContractSeeder) error {
					var err error
					res, err = cs.DeployMany(ctx, s.parts.Chain.RPCURL, in.Contracts, sdk.DeployOptions{Hardfork: in.Hardfork})
					return err
				})
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
			},
		},
		{
			Name:        h.name("get_contract_address"),
			Description: "The address of a contract deployed in this session (the latest deployment of that name), or null.",
			Schema:      schemas.Get("get_contract_address"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in struct {
					ContractName string `json:"contractName"`
				}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				ds, err := h.deployments(ctx)
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
			},
		},
		{
			Name:        h.name("list_contracts"),
			Description: "The contracts deployed in this session, oldest first (a re-deployed name appears once per deployment).",
			Schema:      schemas.Get("list_contracts"), Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				ds, err := h.deployments(ctx)
				if err != nil {
					return nil, err
				}
				out := make([]map[string]string, 0, len(ds))
				for _, d := range ds {
					out = append(out, contractView(d))
				}
				return map[string]any{"contracts": out}, nil
			},
		},
	}
}

// seedingSession returns the active session, which must run a chain.
func (h *Host) seedingSession(ctx context.Context) (*session, error) {
	s, err := h.active()
	if err != nil {
		return nil, err
	}
	if s.parts.Chain == nil {
		return nil, sdk.Errorf(sdk.CodeChainNotRunning, "the session has no local chain: install mmcp-plugin-chain and relaunch with %s", h.name("launch"))
	}
	if err := h.chainAlive(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// withSeeder runs fn against the ContractSeeding plugin. The first seeding
// of a session empties the registry, so that it only ever lists this
// session's deployments.
func (h *Host) withSeeder(ctx context.Context, s *session, fn func(sdk.ContractSeeder) error) error {
	cs := h.plugins.ContractSeeder()
	if !s.parts.Contracts {
		if err := cs.Clear(ctx); err != nil {
			return err
		}
		s.parts.Contracts = true
	}
	return fn(cs)
}

// deployments lists the active session's deployments, oldest first.
func (h *Host) deployments(ctx context.Context) ([]sdk.Deployment, error) {
	s, err := h.active()
	if err != nil {
		return nil, err
	}
	if !s.parts.Contracts {
		return nil, nil
	}
	return h.plugins.ContractSeeder().Deployed(ctx)
}

// contractView is a deployment as the tools answer it.
func contractView(d sdk.Deployment) map[string]string {
	return map[string]string{"contractName": d.ContractName, "contractAddress": d.ContractAddress, "deployedAt": d.DeployedAt}
}
