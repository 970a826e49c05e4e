package chain

import (
	"context"
	"encoding/json"
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

// Tools implements sdk.ToolProvider: the chain's standalone tools.
func (p *Plugin) Tools() []sdk.Tool {
	return []sdk.Tool{
		{Name: "start", Description: "Start a local Anvil chain (MetaMask's E2E settings: its chain id, the test wallet's mnemonic, 25 ETH per account, automine) or attach to a running node with rpcUrl. Returns the chain status.",
			InputSchema: json.RawMessage(startSchema)},
		{Name: "stop", Description: "Stop the local chain (Anvil and its process group).", InputSchema: json.RawMessage(noArgsSchema)},
		{Name: "status", Description: "Whether the local chain runs, its RPC URL, chain id and block number.", InputSchema: json.RawMessage(noArgsSchema)},
		{Name: "snapshot", Description: "Take an EVM snapshot (evm_snapshot); returns its id for revert.", InputSchema: json.RawMessage(noArgsSchema)},
		{Name: "revert", Description: "Revert the chain to a snapshot id (evm_revert). A snapshot can be reverted to once.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","minLength":1,"description":"Snapshot id from snapshot"}},"required":["id"],"additionalProperties":false}`)},
		{Name: "set_balance", Description: "Set an account's ETH balance (anvil_setBalance).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"address":{"type":"string","pattern":"^0x[0-9a-fA-F]{40}$","description":"Account address"},"wei":{"type":"string","pattern":"^(0x[0-9a-fA-F]+|[0-9]+)$","description":"Balance in wei, decimal or 0x hex"}},"required":["address","wei"],"additionalProperties":false}`)},
		{Name: "mine", Description: "Mine blocks now (anvil_mine).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"blocks":{"type":"integer","minimum":1,"maximum":10000,"description":"Number of blocks (default 1)"}},"additionalProperties":false}`)},
	}
}

// CallTool implements sdk.ToolProvider.
func (p *Plugin) CallTool(ctx context.Context, name string, args json.RawMessage, ev sdk.Events) (any, error) {
	switch name {
	case "start":
		var o sdk.ChainOptions
		if err := sdk.DecodeArgs(args, &o); err != nil {
			return nil, err
		}
		return p.Start(ctx, o)
	case "stop":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		if err := p.Stop(ctx); err != nil {
			return nil, err
		}
		return map[string]any{"stopped": true}, nil
	case "status":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		return p.Status(ctx)
	case "snapshot":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		id, err := p.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": id}, nil
	case "revert":
		var a struct {
			ID string `json:"id"`
		}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if err := p.Revert(ctx, a.ID); err != nil {
			return nil, err
		}
		return map[string]any{"reverted": true, "id": a.ID}, nil
	case "set_balance":
		var a struct {
			Address string `json:"address"`
			Wei     string `json:"wei"`
		}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if err := p.SetBalance(ctx, a.Address, a.Wei); err != nil {
			return nil, err
		}
		return map[string]any{"address": a.Address, "wei": a.Wei}, nil
	case "mine":
		a := struct {
			Blocks int `json:"blocks"`
		}{Blocks: 1}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if err := p.Mine(ctx, a.Blocks); err != nil {
			return nil, err
		}
		st, _ := p.Status(ctx)
		return map[string]any{"mined": a.Blocks, "blockNumber": st.BlockNumber}, nil
	}
	return nil, sdk.Errorf(sdk.CodeInvalidInput, "unknown tool %q", name)
}
