package sdk

import (
	"context"
	"encoding/json"
)

// Chain is the Chain capability: a local node's lifecycle and its control.
// A chain plugin implements both halves; the host's launch needs only
// ChainLifecycle, its chain tools only ChainControl.
type Chain interface {
	ChainLifecycle
	ChainControl
}

// ChainLifecycle starts, stops and reports the node.
type ChainLifecycle interface {
	// StartChain starts the node (or attaches to an external one) and
	// returns once it answers eth_blockNumber. A busy port is
	// CodePortInUse.
	StartChain(ctx context.Context, req StartChainRequest) (StartChainResponse, error)
	// StopChain stops the node; the process is gone when it returns.
	StopChain(ctx context.Context, req StopChainRequest) (StopChainResponse, error)
	// ChainStatus reports whether the node runs and where.
	ChainStatus(ctx context.Context, req ChainStatusRequest) (ChainStatusResponse, error)
}

// ChainControl acts on a running node: snapshots, balances, blocks.
type ChainControl interface {
	// Snapshot takes an evm_snapshot.
	Snapshot(ctx context.Context, req SnapshotRequest) (SnapshotResponse, error)
	// Revert reverts to a snapshot.
	Revert(ctx context.Context, req RevertRequest) (RevertResponse, error)
	// SetBalance sets an account's balance.
	SetBalance(ctx context.Context, req SetBalanceRequest) (SetBalanceResponse, error)
	// Mine mines blocks.
	Mine(ctx context.Context, req MineRequest) (MineResponse, error)
}

// ChainOptions configure a node. Zero values mean MetaMask's defaults
// (port 8545, chain id 1337, the E2E mnemonic, 25 ETH, Prague) and automine
// (BlockTime 0: blocks are mined per transaction, which keeps seeding fast).
type ChainOptions struct {
	Port      int    `json:"port,omitempty"`
	ChainID   int64  `json:"chainId,omitempty"`
	Mnemonic  string `json:"mnemonic,omitempty"`
	Balance   int64  `json:"balance,omitempty"`
	Hardfork  string `json:"hardfork,omitempty"`
	BlockTime int    `json:"blockTime,omitempty"`
	// RPCURL attaches to an already running node instead of starting one.
	RPCURL string `json:"rpcUrl,omitempty"`
	// FreePort starts the node on a free loopback port the plugin picks
	// (Port is then ignored), so that several nodes run side by side;
	// ChainStatus.Port and RPCURL say which.
	FreePort bool `json:"freePort,omitempty"`
}

// ChainStatus describes the node.
type ChainStatus struct {
	Running     bool   `json:"running"`
	RPCURL      string `json:"rpcUrl,omitempty"`
	Port        int    `json:"port,omitempty"`
	ChainID     int64  `json:"chainId,omitempty"`
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	// External is true when the node was not started by the plugin.
	External bool `json:"external,omitempty"`
}

// StartChainRequest says which node to start or attach to.
type StartChainRequest struct {
	ChainOptions
	// State, when set, is loaded into the node before StartChain
	// answers: a node's full state as Anvil's anvil_dumpState answers it
	// (the JSON string, quotes included; a checkpoint keeps it so). The
	// status then reports the state's block number. A node the plugin
	// did not start (RPCURL) is not loaded: CodeInvalidInput.
	State json.RawMessage `json:"state,omitempty"`
}

// StartChainResponse describes the node that runs.
type StartChainResponse struct {
	Status ChainStatus `json:"status"`
}

// StopChainRequest stops the node.
type StopChainRequest struct{}

// StopChainResponse is the answer of StopChain.
type StopChainResponse struct{}

// ChainStatusRequest asks for the node's status.
type ChainStatusRequest struct{}

// ChainStatusResponse describes the node; a stopped node is Running false,
// not an error.
type ChainStatusResponse struct {
	Status ChainStatus `json:"status"`
}

// SnapshotRequest takes a snapshot.
type SnapshotRequest struct{}

// SnapshotResponse names the snapshot taken.
type SnapshotResponse struct {
	// ID is the node's snapshot id, for Revert.
	ID string `json:"id"`
}

// RevertRequest names the snapshot to revert to.
type RevertRequest struct {
	// ID is a Snapshot's id. An unknown (or already used) id is
	// CodeInvalidInput.
	ID string `json:"id"`
}

// RevertResponse is the answer of Revert.
type RevertResponse struct{}

// SetBalanceRequest sets one account's balance.
type SetBalanceRequest struct {
	// Address is the account, 0x-prefixed.
	Address string `json:"address"`
	// Wei is the new balance in wei, decimal or 0x hex.
	Wei string `json:"wei"`
}

// SetBalanceResponse is the answer of SetBalance.
type SetBalanceResponse struct{}

// MineRequest mines blocks.
type MineRequest struct {
	// Blocks is how many blocks to mine.
	Blocks int `json:"blocks"`
}

// MineResponse is the answer of Mine.
type MineResponse struct{}
