package session

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
)

// balanceOf reads an address's balance and formats it like the wallet
// does: "25 ETH", "0.1234 ETH".
func balanceOf(ctx context.Context, url, address string) (string, error) {
	var hexWei string
	if err := jsonrpc.Call(ctx, url, "eth_getBalance", []any{address, "latest"}, &hexWei); err != nil {
		return "", err
	}
	wei, ok := new(big.Int).SetString(strings.TrimPrefix(hexWei, "0x"), 16)
	if !ok {
		return "", fmt.Errorf("balance %q is not hex", hexWei)
	}
	return wallet.FormatEther(wei) + " ETH", nil
}
