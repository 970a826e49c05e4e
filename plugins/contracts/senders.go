package contracts

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// nodeSender sends with eth_sendTransaction from an account the node signs
// for (its own unlocked account, or an impersonated one on Anvil).
type nodeSender struct {
	rpc  *rpc.Client
	from common.Address
	// gasPrice, when set, makes the transaction a legacy one.
	gasPrice *big.Int
}

// From implements sender.
func (s *nodeSender) From() common.Address { return s.from }

// Send implements sender.
func (s *nodeSender) Send(ctx context.Context, to *common.Address, data []byte) (common.Hash, error) {
	tx := map[string]any{"from": s.from, "data": hexutil.Bytes(data)}
	if to != nil {
		tx["to"] = *to
	}
	if s.gasPrice != nil {
		tx["gasPrice"] = (*hexutil.Big)(s.gasPrice)
	}
	var h common.Hash
	if err := s.rpc.CallContext(ctx, &h, "eth_sendTransaction", tx); err != nil {
		return common.Hash{}, fmt.Errorf("eth_sendTransaction: %w", err)
	}
	return h, nil
}

// keySender signs locally with a private key and sends raw transactions.
type keySender struct {
	b       backend
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	// gasPrice, when set, makes the transaction a legacy one.
	gasPrice *big.Int
}

// From implements sender.
func (s *keySender) From() common.Address { return s.from }

// Send implements sender.
func (s *keySender) Send(ctx context.Context, to *common.Address, data []byte) (common.Hash, error) {
	nonce, err := s.b.PendingNonceAt(ctx, s.from)
	if err != nil {
		return common.Hash{}, fmt.Errorf("nonce: %w", err)
	}
	gas, err := s.b.EstimateGas(ctx, ethereum.CallMsg{From: s.from, To: to, Data: data})
	if err != nil {
		return common.Hash{}, fmt.Errorf("estimate gas: %w", err)
	}
	gas += gas / 5
	var txdata types.TxData
	head, err := s.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return common.Hash{}, fmt.Errorf("latest header: %w", err)
	}
	switch {
	case s.gasPrice != nil:
		txdata = &types.LegacyTx{Nonce: nonce, To: to, Gas: gas, GasPrice: s.gasPrice, Data: data}
	case head.BaseFee == nil:
		price, err := s.b.SuggestGasPrice(ctx)
		if err != nil {
			return common.Hash{}, fmt.Errorf("gas price: %w", err)
		}
		txdata = &types.LegacyTx{Nonce: nonce, To: to, Gas: gas, GasPrice: price, Data: data}
	default:
		tip, err := s.b.SuggestGasTipCap(ctx)
		if err != nil {
			return common.Hash{}, fmt.Errorf("gas tip: %w", err)
		}
		feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
		txdata = &types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce, To: to, Gas: gas, GasTipCap: tip, GasFeeCap: feeCap, Data: data}
	}
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(s.chainID), txdata)
	if err != nil {
		return common.Hash{}, fmt.Errorf("sign: %w", err)
	}
	if err := s.b.SendTransaction(ctx, tx); err != nil {
		return common.Hash{}, fmt.Errorf("send raw transaction: %w", err)
	}
	return tx.Hash(), nil
}
