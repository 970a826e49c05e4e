package contracts

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
)

const deployerOptionsSchema = `"deployerOptions":{"type":"object","properties":{` +
	`"fromAddress":{"type":"string","pattern":"^0x[0-9a-fA-F]{40}$","description":"Deploy from this address (impersonated on Anvil)"},` +
	`"fromPrivateKey":{"type":"string","pattern":"^(0x)?[0-9a-fA-F]{64}$","description":"Deploy from this key (funded with 1 ETH first; never logged)"}` +
	`},"additionalProperties":false}`

var commonProps = `"rpcUrl":{"type":"string","minLength":1,"description":"Chain RPC URL (default ` + sdk.DefaultRPCURL + `)"},` +
	`"hardfork":{"type":"string","minLength":1,"description":"EVM hardfork of the chain (default ` + sdk.DefaultHardfork + `; muirGlacier sends legacy transactions)"},` +
	deployerOptionsSchema

// deployArgs are the inputs deploy and deploy_many share.
type deployArgs struct {
	RPCURL   string              `json:"rpcUrl"`
	Hardfork string              `json:"hardfork"`
	Deployer sdk.DeployerOptions `json:"deployerOptions"`
}

func (a deployArgs) options() sdk.DeployOptions {
	return sdk.DeployOptions{Hardfork: a.Hardfork, DeployerOptions: a.Deployer}
}

// addTools defines the plugin's standalone tools (sdk.ToolProvider through
// the embedded sdk.ToolSet).
func (p *Plugin) addTools() {
	ts := &p.ToolSet
	sdk.AddTool(ts, "deploy", "Deploy one contract to the local chain by name (hst, nfts, erc1155, piggybank, failing, multisig, entrypoint, simpleAccountFactory, verifyingPaymaster, or a Foundry/Hardhat artifact name). Returns its address.",
		`{"type":"object","properties":{"contractName":{"type":"string","minLength":1,"description":"Contract to deploy (see the available tool)"},`+commonProps+`},"required":["contractName"],"additionalProperties":false}`,
		func(ctx context.Context, a struct {
			deployArgs
			ContractName string `json:"contractName"`
		}, _ sdk.Events) (any, error) {
			return p.deploy(ctx, a.RPCURL, a.ContractName, a.options())
		})
	sdk.AddTool(ts, "deploy_many", "Deploy several contracts in order; goes on past failures and reports them.",
		`{"type":"object","properties":{"contracts":{"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":20,"description":"Contracts to deploy, in order"},`+commonProps+`},"required":["contracts"],"additionalProperties":false}`,
		func(ctx context.Context, a struct {
			deployArgs
			Contracts []string `json:"contracts"`
		}, ev sdk.Events) (any, error) {
			return p.deployMany(ctx, a.RPCURL, a.Contracts, a.options(), ev)
		})
	sdk.AddTool(ts, "list", "List the contracts deployed in this session, oldest first.", noArgsSchema,
		func(ctx context.Context, _ struct{}, _ sdk.Events) (any, error) {
			d := p.registry.list()
			for i := range d {
				d[i].ABI = "" // the host's decoding reads it; this listing is for people
			}
			return map[string]any{"contracts": d}, nil
		})
	sdk.AddTool(ts, "available", "List the contract names that can be deployed.", noArgsSchema,
		func(ctx context.Context, _ struct{}, _ sdk.Events) (any, error) {
			n := p.available()
			return map[string]any{"contracts": n}, nil
		})
}

const noArgsSchema = `{"type":"object","properties":{},"additionalProperties":false}`
