package contracts

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// backend is the part of an Ethereum client the seeder uses. Both
// *ethclient.Client and go-ethereum's simulated backend client satisfy it.
type backend interface {
	ChainID(ctx context.Context) (*big.Int, error)
	CodeAt(ctx context.Context, account common.Address, block *big.Int) ([]byte, error)
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	SuggestGasPrice(ctx context.Context) (*big.Int, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// sender sends transactions from one account.
type sender interface {
	// From is the sending account.
	From() common.Address
	// Send submits a transaction (to nil = contract creation) and returns
	// its hash without waiting for it to be mined.
	Send(ctx context.Context, to *common.Address, data []byte) (common.Hash, error)
}
