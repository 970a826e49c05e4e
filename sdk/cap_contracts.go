package sdk

import "context"

// ContractSeeder is the ContractSeeding capability: it deploys named test
// contracts to a node (mm_seed_contract, mm_seed_contracts, mm_launch's
// seeding) and keeps a session's registry of what it deployed.
type ContractSeeder interface {
	// Deploy deploys one contract by name. An unknown name is
	// CodeInvalidInput with details.available listing the names.
	Deploy(ctx context.Context, req DeployRequest) (DeployResponse, error)
	// DeployMany deploys in order and goes on past a failure.
	DeployMany(ctx context.Context, req DeployManyRequest) (DeployManyResponse, error)
	// Deployed lists this session's deployments, oldest first. Re-deploying
	// a name keeps both entries.
	Deployed(ctx context.Context, req DeployedRequest) (DeployedResponse, error)
	// Available lists the names that can be deployed.
	Available(ctx context.Context, req AvailableRequest) (AvailableResponse, error)
	// Clear empties the registry (a new session).
	Clear(ctx context.Context, req ClearRequest) (ClearResponse, error)
}

// DeployOptions choose how contracts are deployed.
type DeployOptions struct {
	Hardfork        string          `json:"hardfork,omitempty"`
	DeployerOptions DeployerOptions `json:"deployerOptions,omitempty"`
}

// DeployerOptions choose the deployer (default: the node's account 0).
type DeployerOptions struct {
	// FromAddress impersonates this address (anvil_impersonateAccount).
	FromAddress string `json:"fromAddress,omitempty"`
	// FromPrivateKey deploys from this key, funded first. Never logged.
	FromPrivateKey string `json:"fromPrivateKey,omitempty"`
}

// Deployment is one deployed contract.
type Deployment struct {
	ContractName    string `json:"contractName"`
	ContractAddress string `json:"contractAddress"`
	DeployedAt      string `json:"deployedAt"`
	TxHash          string `json:"txHash,omitempty"`
	BlockNumber     uint64 `json:"blockNumber,omitempty"`
	Deployer        string `json:"deployer,omitempty"`
	// ABI is the contract's ABI as JSON ("" when the plugin does not
	// know it): the host decodes calldata sent to the contract with it
	// (mm_confirmation).
	ABI string `json:"abi,omitempty"`
}

// DeployFailure is one failed deploy of DeployMany.
type DeployFailure struct {
	ContractName string `json:"contractName"`
	Error        string `json:"error"`
}

// DeployRequest deploys one contract.
type DeployRequest struct {
	// RPCURL is the node to deploy to.
	RPCURL string `json:"rpcUrl"`
	// Name is the contract's name (Available lists them).
	Name    string        `json:"name"`
	Options DeployOptions `json:"options,omitempty"`
}

// DeployResponse is the deployed contract.
type DeployResponse struct {
	Deployment Deployment `json:"deployment"`
}

// DeployManyRequest deploys several contracts in order.
type DeployManyRequest struct {
	// RPCURL is the node to deploy to.
	RPCURL  string        `json:"rpcUrl"`
	Names   []string      `json:"names"`
	Options DeployOptions `json:"options,omitempty"`
}

// DeployManyResponse is the outcome of DeployMany: what was deployed and
// what failed, each in order.
type DeployManyResponse struct {
	Deployed []Deployment    `json:"deployed"`
	Failed   []DeployFailure `json:"failed"`
}

// DeployedRequest asks for this session's deployments.
type DeployedRequest struct{}

// DeployedResponse lists this session's deployments, oldest first.
type DeployedResponse struct {
	Deployments []Deployment `json:"deployments"`
}

// AvailableRequest asks for the deployable names.
type AvailableRequest struct{}

// AvailableResponse lists the deployable names.
type AvailableResponse struct {
	Names []string `json:"names"`
}

// ClearRequest empties the registry.
type ClearRequest struct{}

// ClearResponse is the answer of Clear.
type ClearResponse struct{}
