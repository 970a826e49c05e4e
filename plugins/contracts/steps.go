package contracts

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// hstArgs are MetaMask's TST token arguments: initialAmount 10, name
// "TST", 4 decimals, symbol "TST".
func hstArgs(context.Context, *session) ([]any, error) {
	return []any{big.NewInt(10), "TST", uint8(4), "TST"}, nil
}

// factoryArgs is [EntryPoint].
func factoryArgs(ctx context.Context, s *session) ([]any, error) {
	ep, err := s.entryPoint(ctx)
	if err != nil {
		return nil, err
	}
	return []any{ep}, nil
}

// paymasterArgs is [EntryPoint, account 0] (the verifying signer).
func paymasterArgs(ctx context.Context, s *session) ([]any, error) {
	ep, err := s.entryPoint(ctx)
	if err != nil {
		return nil, err
	}
	return []any{ep, s.account0}, nil
}

// mintOneNFT calls mintNFTs(1): token 1 goes to the deployer.
func mintOneNFT(ctx context.Context, s *session, d *deployed) error {
	return s.call(ctx, d, "mintNFTs", big.NewInt(1))
}

// mintERC1155Batch calls mintBatch(deployer, [1,2,3], [1,1,1e14], "0x").
func mintERC1155Batch(ctx context.Context, s *session, d *deployed) error {
	ids := []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(3)}
	amounts := []*big.Int{big.NewInt(1), big.NewInt(1), big.NewInt(100000000000000)}
	return s.call(ctx, d, "mintBatch", s.snd.From(), ids, amounts, []byte{})
}

// call sends a contract call from the deployer and waits for it.
func (s *session) call(ctx context.Context, d *deployed, method string, args ...any) error {
	data, err := d.art.ABI.Pack(method, args...)
	if err != nil {
		return err
	}
	to := common.Address(d.address)
	_, err = s.transact(ctx, method, &to, data)
	return err
}
