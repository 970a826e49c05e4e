package confirm

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
)

// ChainLookup answers decoding's questions (Lookup) from a chain node and
// the registry of the contracts mmcp deployed.
type ChainLookup struct {
	// URL is the node's RPC URL ("" answers no token).
	URL string
	// Names are the deployed contracts' names by lower-case address.
	Names map[string]string
	// ABIs are the deployed contracts' ABIs (JSON) by lower-case address.
	ABIs map[string]string
}

// ContractABI implements ABILookup.
func (l ChainLookup) ContractABI(addr string) (abi.ABI, bool) {
	j := l.ABIs[strings.ToLower(addr)]
	if j == "" {
		return abi.ABI{}, false
	}
	a, err := abi.JSON(strings.NewReader(j))
	return a, err == nil
}

// ContractName implements Lookup.
func (l ChainLookup) ContractName(addr string) string { return l.Names[strings.ToLower(addr)] }

// Token implements Lookup: the contract's decimals() and symbol(), ok
// false when it answers no decimals.
func (l ChainLookup) Token(ctx context.Context, addr string) (Token, bool) {
	if l.URL == "" {
		return Token{}, false
	}
	call := func(fn string) ([]any, bool) {
		data, _ := erc20ABI.Pack(fn)
		var out string
		if jsonrpc.Call(ctx, l.URL, "eth_call", []any{map[string]string{"to": addr, "data": fmt.Sprintf("0x%x", data)}, "latest"}, &out) != nil {
			return nil, false
		}
		b, err := hex.DecodeString(strings.TrimPrefix(out, "0x"))
		if err != nil || len(b) == 0 {
			return nil, false
		}
		v, err := erc20ABI.Unpack(fn, b)
		return v, err == nil && len(v) == 1
	}
	dec, ok := call("decimals")
	if !ok {
		return Token{}, false
	}
	d, ok := dec[0].(uint8)
	if !ok {
		return Token{}, false
	}
	t := Token{Address: addr, Decimals: int(d)}
	if sym, ok := call("symbol"); ok {
		t.Symbol, _ = sym[0].(string)
	}
	return t, true
}
