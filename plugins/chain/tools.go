package chain

import (
	"context"
	"fmt"

	"github.com/mmcp-dev/mmcp/sdk"
)

const noArgsSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// startSchema is the start tool's input; its defaults are sdk's.
var startSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"port":{"type":"integer","minimum":1,"maximum":65535,"description":"Port on 127.0.0.1 (default %d)"},`+
	`"freePort":{"type":"boolean","description":"Listen on a free port instead (the status says which), so that several chains run side by side"},`+
	`"chainId":{"type":"integer","minimum":1,"description":"Chain id (default %d)"},`+
	`"mnemonic":{"type":"string","minLength":1,"description":"BIP39 mnemonic of the dev accounts (default: MetaMask's test SRP)"},`+
	`"balance":{"type":"integer","minimum":1,"description":"Ether per dev account (default %d)"},`+
	`"hardfork":{"type":"string","minLength":1,"description":"EVM hardfork (default %s)"},`+
	`"blockTime":{"type":"integer","minimum":0,"description":"Seconds per block; 0 = automine (default)"},`+
	`"rpcUrl":{"type":"string","minLength":1,"description":"Attach to this running node instead of starting Anvil"}`+
	`},"additionalProperties":false}`, sdk.DefaultAnvilPort, sdk.DefaultChainID, DefaultBalance, sdk.DefaultHardfork)

// addTools defines the chain's standalone tools (sdk.ToolProvider through
// the embedded sdk.ToolSet).
func (p *Plugin) addTools() {
	ts := &p.ToolSet
	sdk.AddTool(ts, "start", "Start a local Anvil chain (MetaMask's E2E settings: its chain id, the test wallet's mnemonic, 25 ETH per account, automine) or attach to a running node with rpcUrl. Returns the chain status.",
		startSchema, func(ctx context.Context, o sdk.ChainOptions, _ sdk.Events) (any, error) {
			return p.start(ctx, o)
		})
	sdk.AddTool(ts, "stop", "Stop the local chain (Anvil and its process group).", noArgsSchema,
		func(ctx context.Context, _ struct{}, _ sdk.Events) (any, error) {
			if err := p.stopNode(ctx); err != nil {
				return nil, err
			}
			return map[string]any{"stopped": true}, nil
		})
	sdk.AddTool(ts, "status", "Whether the local chain runs, its RPC URL, chain id and block number.", noArgsSchema,
		func(ctx context.Context, _ struct{}, _ sdk.Events) (any, error) {
			res, err := p.ChainStatus(ctx, sdk.ChainStatusRequest{})
			return res.Status, err
		})
	sdk.AddTool(ts, "snapshot", "Take an EVM snapshot (evm_snapshot); returns its id for revert.", noArgsSchema,
		func(ctx context.Context, _ struct{}, _ sdk.Events) (any, error) {
			res, err := p.Snapshot(ctx, sdk.SnapshotRequest{})
			if err != nil {
				return nil, err
			}
			return map[string]any{"id": res.ID}, nil
		})
	sdk.AddTool(ts, "revert", "Revert the chain to a snapshot id (evm_revert). A snapshot can be reverted to once.",
		`{"type":"object","properties":{"id":{"type":"string","minLength":1,"description":"Snapshot id from snapshot"}},"required":["id"],"additionalProperties":false}`,
		func(ctx context.Context, a struct {
			ID string `json:"id"`
		}, _ sdk.Events) (any, error) {
			if _, err := p.Revert(ctx, sdk.RevertRequest{ID: a.ID}); err != nil {
				return nil, err
			}
			return map[string]any{"reverted": true, "id": a.ID}, nil
		})
	sdk.AddTool(ts, "set_balance", "Set an account's ETH balance (anvil_setBalance).",
		`{"type":"object","properties":{"address":{"type":"string","pattern":"^0x[0-9a-fA-F]{40}$","description":"Account address"},"wei":{"type":"string","pattern":"^(0x[0-9a-fA-F]+|[0-9]+)$","description":"Balance in wei, decimal or 0x hex"}},"required":["address","wei"],"additionalProperties":false}`,
		func(ctx context.Context, a struct {
			Address string `json:"address"`
			Wei     string `json:"wei"`
		}, _ sdk.Events) (any, error) {
			if _, err := p.SetBalance(ctx, sdk.SetBalanceRequest{Address: a.Address, Wei: a.Wei}); err != nil {
				return nil, err
			}
			return map[string]any{"address": a.Address, "wei": a.Wei}, nil
		})
	sdk.AddTool(ts, "mine", "Mine blocks now (anvil_mine).",
		`{"type":"object","properties":{"blocks":{"type":"integer","minimum":1,"maximum":10000,"default":1,"description":"Number of blocks"}},"additionalProperties":false}`,
		func(ctx context.Context, a struct {
			Blocks int `json:"blocks"`
		}, _ sdk.Events) (any, error) {
			if err := p.mine(ctx, a.Blocks); err != nil {
				return nil, err
			}
			st, _ := p.ChainStatus(ctx, sdk.ChainStatusRequest{})
			return map[string]any{"mined": a.Blocks, "blockNumber": st.Status.BlockNumber}, nil
		})
}
