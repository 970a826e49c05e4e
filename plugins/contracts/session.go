package contracts

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/mmcp-dev/mmcp/sdk"
)

const (
	// receiptPoll is the receipt polling interval (bind.WaitMined polls
	// once a second, far too slow against Anvil).
	receiptPoll = 5 * time.Millisecond
	// receiptTimeout bounds the wait for one receipt.
	receiptTimeout = 60 * time.Second
)

// session is one deploy call's view of a chain: how to read it, who sends
// and how to get a block mined.
type session struct {
	// key identifies the chain in the registry (its RPC URL).
	key string
	b   backend
	snd sender
	// account0 is the node's first account (the deployer when the node
	// has none): the verifying paymaster's signer.
	account0 common.Address
	// nudge mines a block when a transaction is not mined at once (nil:
	// never).
	nudge func(ctx context.Context) error
	// nudgeAfter is how many empty receipt polls come before the nudge.
	nudgeAfter int
	// entryPoint returns this chain's EntryPoint, deploying one first when
	// the session has none.
	entryPoint func(ctx context.Context) (common.Address, error)
}

// deployed is a contract just created in a session.
type deployed struct {
	address common.Address
	art     *artifact
	receipt *types.Receipt
}

// create deploys creation code and checks that code landed.
func (s *session) create(ctx context.Context, name string, data []byte) (*types.Receipt, error) {
	r, err := s.transact(ctx, name, nil, data)
	if err != nil {
		return nil, err
	}
	if r.ContractAddress == (common.Address{}) {
		return nil, sdk.Errorf(sdk.CodeContractDeployFailed, "deploying %s: the receipt has no contract address", name)
	}
	code, err := s.b.CodeAt(ctx, r.ContractAddress, nil)
	if err != nil {
		return nil, fmt.Errorf("read code of %s: %w", name, err)
	}
	if len(code) == 0 {
		return nil, sdk.Errorf(sdk.CodeContractDeployFailed, "deploying %s: no code at %s after the deploy", name, r.ContractAddress.Hex()).
			WithDetails(map[string]any{"txHash": r.TxHash.Hex()})
	}
	return r, nil
}

// transact sends one transaction and waits for a successful receipt.
func (s *session) transact(ctx context.Context, what string, to *common.Address, data []byte) (*types.Receipt, error) {
	h, err := s.snd.Send(ctx, to, data)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeContractDeployFailed, "%s: %w", what, err)
	}
	r, err := s.wait(ctx, h)
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return nil, sdk.Errorf(sdk.CodeContractDeployFailed, "%s: transaction %s reverted", what, h.Hex()).
			WithDetails(map[string]any{"txHash": h.Hex(), "blockNumber": r.BlockNumber.Uint64()})
	}
	return r, nil
}

// wait polls the receipt every receiptPoll, mining a block once when the
// transaction is not mined after nudgeAfter polls (a node with a block
// time).
func (s *session) wait(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, receiptTimeout)
	defer cancel()
	t := time.NewTicker(receiptPoll)
	defer t.Stop()
	for i := 0; ; i++ {
		r, err := s.b.TransactionReceipt(ctx, h)
		if err == nil && r != nil {
			return r, nil
		}
		if err != nil && !notYet(err) && ctx.Err() == nil {
			return nil, fmt.Errorf("receipt of %s: %w", h.Hex(), err)
		}
		if i == s.nudgeAfter && s.nudge != nil {
			if err := s.nudge(ctx); err != nil {
				s.nudge = nil // the node cannot mine on demand; just wait
			}
		}
		select {
		case <-ctx.Done():
			return nil, sdk.Errorf(sdk.CodeTimeout, "transaction %s was not mined: %w", h.Hex(), ctx.Err())
		case <-t.C:
		}
	}
}

// oneEther is what a private-key or impersonated deployer is funded with.
var oneEther = big.NewInt(1e18)

// notYet reports whether a receipt error means "not mined (or indexed)
// yet" rather than a failure. Geth-based nodes answer "transaction indexing
// is in progress" right after start.
func notYet(err error) bool {
	return errors.Is(err, ethereum.NotFound) || strings.Contains(err.Error(), "indexing is in progress")
}
