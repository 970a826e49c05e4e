package contracts

import (
	"context"
	"encoding/json"

	"github.com/mmcp-dev/mmcp/sdk"
)

const deployerOptionsSchema = `"deployerOptions":{"type":"object","properties":{` +
	`"fromAddress":{"type":"string","pattern":"^0x[0-9a-fA-F]{40}$","description":"Deploy from this address (impersonated on Anvil)"},` +
	`"fromPrivateKey":{"type":"string","pattern":"^(0x)?[0-9a-fA-F]{64}$","description":"Deploy from this key (funded with 1 ETH first; never logged)"}` +
	`},"additionalProperties":false}`

var commonProps = `"rpcUrl":{"type":"string","minLength":1,"description":"Chain RPC URL (default ` + sdk.DefaultRPCURL + `)"},` +
	`"hardfork":{"type":"string","minLength":1,"description":"EVM hardfork of the chain (default ` + sdk.DefaultHardfork + `; muirGlacier sends legacy transactions)"},` +
	deployerOptionsSchema

// Tools implements sdk.ToolProvider.
func (p *Plugin) Tools() []sdk.Tool {
	return []sdk.Tool{
		{Name: "deploy", Description: "Deploy one contract to the local chain by name (hst, nfts, erc1155, piggybank, failing, multisig, entrypoint, simpleAccountFactory, verifyingPaymaster, or a Foundry/Hardhat artifact name). Returns its address.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"contractName":{"type":"string","minLength":1,"description":"Contract to deploy (see the available tool)"},` + commonProps + `},"required":["contractName"],"additionalProperties":false}`)},
		{Name: "deploy_many", Description: "Deploy several contracts in order; goes on past failures and reports them.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"contracts":{"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":20,"description":"Contracts to deploy, in order"},` + commonProps + `},"required":["contracts"],"additionalProperties":false}`)},
		{Name: "list", Description: "List the contracts deployed in this session, oldest first.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
		{Name: "available", Description: "List the contract names that can be deployed.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
	}
}

// CallTool implements sdk.ToolProvider.
func (p *Plugin) CallTool(ctx context.Context, name string, args json.RawMessage, ev sdk.Events) (any, error) {
	switch name {
	case "deploy":
		var a struct {
			RPCURL       string              `json:"rpcUrl"`
			ContractName string              `json:"contractName"`
			Hardfork     string              `json:"hardfork"`
			Deployer     sdk.DeployerOptions `json:"deployerOptions"`
		}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if a.ContractName == "" {
			return nil, sdk.Errorf(sdk.CodeInvalidInput, "contractName is required").WithDetails(map[string]any{"field": "contractName"})
		}
		return p.Deploy(ctx, a.RPCURL, a.ContractName, sdk.DeployOptions{Hardfork: a.Hardfork, DeployerOptions: a.Deployer})
	case "deploy_many":
		var a struct {
			RPCURL    string              `json:"rpcUrl"`
			Contracts []string            `json:"contracts"`
			Hardfork  string              `json:"hardfork"`
			Deployer  sdk.DeployerOptions `json:"deployerOptions"`
		}
		if err := sdk.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if len(a.Contracts) == 0 {
			return nil, sdk.Errorf(sdk.CodeInvalidInput, "contracts must list at least one name").WithDetails(map[string]any{"field": "contracts"})
		}
		return p.deployMany(ctx, a.RPCURL, a.Contracts, sdk.DeployOptions{Hardfork: a.Hardfork, DeployerOptions: a.Deployer}, ev)
	case "list":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		d, _ := p.Deployed(ctx)
		return map[string]any{"contracts": d}, nil
	case "available":
		if err := sdk.DecodeArgs(args, &struct{}{}); err != nil {
			return nil, err
		}
		n, _ := p.Available(ctx)
		return map[string]any{"contracts": n}, nil
	}
	return nil, sdk.Errorf(sdk.CodeInvalidInput, "unknown tool %q", name)
}
