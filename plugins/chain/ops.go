package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/mmcp-dev/mmcp/sdk"
)

// ChainStatus implements sdk.ChainLifecycle. A stopped chain is Running
// false, not an error.
func (p *Plugin) ChainStatus(ctx context.Context, _ sdk.ChainStatusRequest) (sdk.ChainStatusResponse, error) {
	n, err := p.current()
	if err != nil {
		return sdk.ChainStatusResponse{Status: sdk.ChainStatus{Running: false}}, nil
	}
	return sdk.ChainStatusResponse{Status: p.statusOf(ctx, n)}, nil
}

// statusOf describes n; the block number is left out when the node does
// not answer.
func (p *Plugin) statusOf(ctx context.Context, n *node) sdk.ChainStatus {
	st := sdk.ChainStatus{
		Running:  true,
		RPCURL:   n.rpcURL,
		Port:     n.opts.Port,
		ChainID:  n.opts.ChainID,
		External: n.external,
	}
	if bn, err := n.eth.BlockNumber(ctx); err == nil {
		st.BlockNumber = bn
	}
	return st
}

// RPCURL returns the URL of the running chain, or MM_CHAIN_NOT_RUNNING.
func (p *Plugin) RPCURL() (string, error) {
	n, err := p.current()
	if err != nil {
		return "", err
	}
	return n.rpcURL, nil
}

// call runs one JSON-RPC call against the running chain; a node that does
// not answer is MM_CHAIN_NOT_RUNNING.
func (p *Plugin) call(ctx context.Context, result any, method string, args ...any) error {
	n, err := p.current()
	if err != nil {
		return err
	}
	if err := n.rpc.CallContext(ctx, result, method, args...); err != nil {
		if isConnErr(err) {
			return sdk.Errorf(sdk.CodeChainNotRunning, "the chain at %s does not answer: %w", n.rpcURL, err)
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// isConnErr reports whether err means nothing answered.
func isConnErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "connection reset") ||
		strings.Contains(s, "EOF") || strings.Contains(s, "no such host")
}

// Snapshot implements sdk.ChainControl with evm_snapshot.
func (p *Plugin) Snapshot(ctx context.Context, _ sdk.SnapshotRequest) (sdk.SnapshotResponse, error) {
	var id string
	if err := p.call(ctx, &id, "evm_snapshot"); err != nil {
		return sdk.SnapshotResponse{}, err
	}
	return sdk.SnapshotResponse{ID: id}, nil
}

// Revert implements sdk.ChainControl with evm_revert. An unknown (or
// already used) id is MM_INVALID_INPUT.
func (p *Plugin) Revert(ctx context.Context, req sdk.RevertRequest) (sdk.RevertResponse, error) {
	id := req.ID
	if id == "" {
		return sdk.RevertResponse{}, sdk.Errorf(sdk.CodeInvalidInput, "snapshot id is required")
	}
	var ok bool
	if err := p.call(ctx, &ok, "evm_revert", id); err != nil {
		return sdk.RevertResponse{}, err
	}
	if !ok {
		return sdk.RevertResponse{}, sdk.Errorf(sdk.CodeInvalidInput, "snapshot %s does not exist (a snapshot can be reverted to once)", id).
			WithDetails(map[string]any{"id": id})
	}
	return sdk.RevertResponse{}, nil
}

// SetBalance implements sdk.ChainControl with anvil_setBalance.
func (p *Plugin) SetBalance(ctx context.Context, req sdk.SetBalanceRequest) (sdk.SetBalanceResponse, error) {
	if !common.IsHexAddress(req.Address) {
		return sdk.SetBalanceResponse{}, sdk.Errorf(sdk.CodeInvalidInput, "invalid address %q", req.Address).WithDetails(map[string]any{"field": "address"})
	}
	amount, err := parseWei(req.Wei)
	if err != nil {
		return sdk.SetBalanceResponse{}, err
	}
	return sdk.SetBalanceResponse{}, p.call(ctx, nil, "anvil_setBalance", common.HexToAddress(req.Address), (*hexutil.Big)(amount))
}

// parseWei reads a non-negative decimal or 0x-hex amount.
func parseWei(s string) (*big.Int, error) {
	s = strings.TrimSpace(s)
	v, ok := new(big.Int), false
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		v, ok = v.SetString(s[2:], 16)
	} else {
		v, ok = v.SetString(s, 10)
	}
	if !ok || v.Sign() < 0 {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "invalid wei amount %q: use a decimal or 0x-hex integer", s).
			WithDetails(map[string]any{"field": "wei"})
	}
	return v, nil
}

// Mine implements sdk.ChainControl with anvil_mine (evm_mine per block on
// nodes without it).
func (p *Plugin) Mine(ctx context.Context, req sdk.MineRequest) (sdk.MineResponse, error) {
	return sdk.MineResponse{}, p.mine(ctx, req.Blocks)
}

func (p *Plugin) mine(ctx context.Context, blocks int) error {
	if blocks < 1 {
		return sdk.Errorf(sdk.CodeInvalidInput, "blocks must be at least 1").WithDetails(map[string]any{"field": "blocks"})
	}
	err := p.call(ctx, nil, "anvil_mine", hexutil.Uint64(blocks))
	if err == nil || sdk.AsError(err).Code == sdk.CodeChainNotRunning {
		return err
	}
	for i := 0; i < blocks; i++ {
		if err := p.call(ctx, nil, "evm_mine"); err != nil {
			return err
		}
	}
	return nil
}
