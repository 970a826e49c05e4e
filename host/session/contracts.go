package session

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Seeding is the contract seeder of session s (its slot's
// ContractSeeding plugin) with the RPC URL of s's live chain. The first
// seeding of a session empties the seeder's registry, so that it only
// ever lists this session's deployments.
func (m *Manager) Seeding(ctx context.Context, s *Session) (sdk.ContractSeeder, string, error) {
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

// Deployed lists session s's deployments, oldest first.
func (m *Manager) Deployed(ctx context.Context, s *Session) ([]sdk.Deployment, error) {
	if !s.parts.Contracts {
		return nil, nil
	}
	res, err := m.plugins.Slot(s.slot).ContractSeeder().Deployed(ctx, sdk.DeployedRequest{})
	return res.Deployments, err
}
