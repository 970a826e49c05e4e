package session

import (
	"context"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// seeding is the contract seeder of session s (its slot's
// ContractSeeding plugin) with the RPC URL of s's live chain. The first
// seeding of a session empties the seeder's registry, so that it only
// ever lists this session's deployments.
func (m *Manager) seeding(ctx context.Context, s *Session) (sdk.ContractSeeder, string, error) {
	if s.parts.Chain == nil {
		return nil, "", sdk.Errorf(sdk.CodeChainNotRunning, "the session has no local chain: install mmcp-plugin-chain and relaunch with %s", m.tool("launch"))
	}
	if err := m.ChainAlive(ctx, s); err != nil {
		return nil, "", err
	}
	cs := m.plugins.Slot(s.slot).ContractSeeder()
	if !s.parts.Contracts {
		if _, err := cs.Clear(ctx, sdk.ClearRequest{}); err != nil {
			return nil, "", err
		}
		s.parts.Contracts = true
	}
	return cs, s.parts.Chain.RPCURL, nil
}

// deployed lists session s's deployments, oldest first.
func (m *Manager) deployed(ctx context.Context, s *Session) ([]sdk.Deployment, error) {
	if !s.parts.Contracts {
		return s.registry(nil), nil
	}
	res, err := m.plugins.Slot(s.slot).ContractSeeder().Deployed(ctx, sdk.DeployedRequest{})
	if err != nil {
		return nil, err
	}
	return s.registry(res.Deployments), nil
}

// SeedContract deploys one contract to the call's session's chain
// (mm_seed_contract).
func (m *Manager) SeedContract(ctx context.Context, name string, opts sdk.DeployOptions) (map[string]string, error) {
	return onSeeder(ctx, m, func(cs sdk.ContractSeeder, rpcURL string) (map[string]string, error) {
		res, err := cs.Deploy(ctx, sdk.DeployRequest{RPCURL: rpcURL, Name: name, Options: opts})
		if err != nil {
			return nil, err
		}
		return contractView(res.Deployment), nil
	})
}

// SeedContracts deploys several contracts in order, going on past a
// failure (mm_seed_contracts).
func (m *Manager) SeedContracts(ctx context.Context, names []string, opts sdk.DeployOptions) (map[string]any, error) {
	return onSeeder(ctx, m, func(cs sdk.ContractSeeder, rpcURL string) (map[string]any, error) {
		res, err := cs.DeployMany(ctx, sdk.DeployManyRequest{RPCURL: rpcURL, Names: names, Options: opts})
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
	})
}

// ContractAddress is the address of the latest deployment of name in the
// call's session, or null (mm_get_contract_address).
func (m *Manager) ContractAddress(ctx context.Context, name string) (map[string]any, error) {
	return onActive(ctx, m, func(s *Session) (map[string]any, error) {
		ds, err := m.deployed(ctx, s)
		if err != nil {
			return nil, err
		}
		var addr any
		for _, d := range ds {
			if strings.EqualFold(d.ContractName, name) {
				addr = d.ContractAddress
			}
		}
		return map[string]any{"contractName": name, "contractAddress": addr}, nil
	})
}

// ListContracts lists the call's session's deployments, oldest first
// (mm_list_contracts).
func (m *Manager) ListContracts(ctx context.Context) (map[string]any, error) {
	return onActive(ctx, m, func(s *Session) (map[string]any, error) {
		ds, err := m.deployed(ctx, s)
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

// onSeeder runs fn with the call's session's seeder and live chain
// (seeding).
func onSeeder[T any](ctx context.Context, m *Manager, fn func(cs sdk.ContractSeeder, rpcURL string) (T, error)) (T, error) {
	return onActive(ctx, m, func(s *Session) (T, error) {
		cs, rpcURL, err := m.seeding(ctx, s)
		if err != nil {
			var zero T
			return zero, err
		}
		return fn(cs, rpcURL)
	})
}

// contractView is a deployment as the tools answer it.
func contractView(d sdk.Deployment) map[string]string {
	return map[string]string{"contractName": d.ContractName, "contractAddress": d.ContractAddress, "deployedAt": d.DeployedAt}
}
