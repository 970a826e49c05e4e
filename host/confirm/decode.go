package confirm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Token is what an ERC-20 contract says of itself.
type Token struct {
	Address  string `json:"address"`
	Symbol   string `json:"symbol,omitempty"`
	Decimals int    `json:"decimals"`
}

// Lookup answers what decoding asks of the chain and the session: an
// ERC-20 token's decimals and symbol (ok false when the contract is no
// ERC-20), and the name of a contract mmcp deployed ("" for none).
type Lookup interface {
	Token(ctx context.Context, address string) (Token, bool)
	ContractName(address string) string
}

// ABILookup is a Lookup that also knows the ABIs of the contracts mmcp
// deployed: calldata a standard interface does not decode is decoded
// with the contract's own ABI.
type ABILookup interface {
	ContractABI(address string) (abi.ABI, bool)
}

// Call is decoded calldata.
type Call struct {
	// Contract is the name mmcp deployed the contract under, if it did.
	Contract  string         `json:"contract,omitempty"`
	Standard  string         `json:"standard,omitempty"`
	Function  string         `json:"function"`
	Signature string         `json:"signature"`
	Args      map[string]any `json:"args"`
}

// Network is what an add or switch network request asks for.
type Network struct {
	ChainID string `json:"chainId"`
	Name    string `json:"name,omitempty"`
	RPCURL  string `json:"rpcUrl,omitempty"`
	Symbol  string `json:"symbol,omitempty"`
}

// Decoded is a request as the dapp sent it, decoded.
type Decoded struct {
	Kind   string `json:"kind"`
	Method string `json:"method"`
	Origin string `json:"origin"`
	// A transaction's fields: the ether value in wei and in ETH.
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	ValueWei string `json:"valueWei,omitempty"`
	Value    string `json:"value,omitempty"`
	Gas      string `json:"gas,omitempty"`
	ChainID  int64  `json:"chainId,omitempty"`
	Data     string `json:"data,omitempty"`
	Call     *Call  `json:"call,omitempty"`
	// Token transfers and approvals: the token, the recipient or spender,
	// the amount in token units (and raw), an NFT's id.
	Token     *Token `json:"token,omitempty"`
	Recipient string `json:"recipient,omitempty"`
	Spender   string `json:"spender,omitempty"`
	Amount    string `json:"amount,omitempty"`
	AmountRaw string `json:"amountRaw,omitempty"`
	TokenID   string `json:"tokenId,omitempty"`
	// Signatures: personal_sign's text (hex when it is no UTF-8), typed
	// data's structure, and the signing account.
	Message   string `json:"message,omitempty"`
	TypedData any    `json:"typedData,omitempty"`
	Account   string `json:"account,omitempty"`
	// Networks asked to be added or switched to.
	Network *Network `json:"network,omitempty"`
}

// Decode decodes request r; chainID is the chain the dapp was told last
// (0 when unknown). lk may be nil.
func Decode(ctx context.Context, r Request, chainID int64, lk Lookup) Decoded {
	d := Decoded{Kind: approvalMethods[r.Method], Method: r.Method, Origin: r.Origin, ChainID: chainID}
	var params []json.RawMessage
	_ = json.Unmarshal(r.Params, &params)
	arg := func(i int) json.RawMessage {
		if i < len(params) {
			return params[i]
		}
		return nil
	}
	switch r.Method {
	case "eth_sendTransaction":
		decodeTx(ctx, &d, arg(0), lk)
	case "personal_sign":
		var msg, acct string
		_ = json.Unmarshal(arg(0), &msg)
		_ = json.Unmarshal(arg(1), &acct)
		if !isHex(msg) && isHex(acct) && len(acct) != 42 {
			msg, acct = acct, msg // some dapps send (account, message)
		}
		d.Message, d.Account = hexText(msg), acct
	case "eth_signTypedData_v4":
		_ = json.Unmarshal(arg(0), &d.Account)
		d.TypedData = typedData(arg(1))
	case "wallet_addEthereumChain", "wallet_switchEthereumChain":
		var p struct {
			ChainID   string   `json:"chainId"`
			ChainName string   `json:"chainName"`
			RPCURLs   []string `json:"rpcUrls"`
			Currency  struct {
				Symbol string `json:"symbol"`
			} `json:"nativeCurrency"`
		}
		_ = json.Unmarshal(arg(0), &p)
		n := &Network{ChainID: p.ChainID, Name: p.ChainName, Symbol: p.Currency.Symbol}
		if len(p.RPCURLs) > 0 {
			n.RPCURL = p.RPCURLs[0]
		}
		if id, ok := hexBig(p.ChainID); ok && p.ChainID != "" {
			d.ChainID = id.Int64()
		}
		d.Network = n
	}
	return d
}

// decodeTx fills d from an eth_sendTransaction's transaction.
func decodeTx(ctx context.Context, d *Decoded, raw json.RawMessage, lk Lookup) {
	var tx struct {
		From, To, Value, Data, Input, Gas, ChainID string
	}
	_ = json.Unmarshal(raw, &tx)
	if tx.Data == "" {
		tx.Data = tx.Input
	}
	d.From, d.To, d.Gas = checksum(tx.From), checksum(tx.To), tx.Gas
	if v, ok := hexBig(tx.Value); ok {
		d.ValueWei, d.Value = v.String(), FormatUnits(v, 18)
	}
	if id, ok := hexBig(tx.ChainID); ok && tx.ChainID != "" {
		d.ChainID = id.Int64()
	}
	data := strings.TrimPrefix(strings.ToLower(tx.Data), "0x")
	switch {
	case tx.To == "":
		d.Kind, d.Data = KindDeploy, tx.Data
		return
	case data == "":
		d.Kind = KindTransfer
		return
	}
	d.Kind, d.Data = KindContractCall, "0x"+data
	b, err := hex.DecodeString(data)
	if err != nil || len(b) < 4 {
		return
	}
	var tok Token
	isToken := false
	if lk != nil {
		tok, isToken = lk.Token(ctx, d.To)
	}
	call := decodeCall(b, isToken)
	if al, ok := lk.(ABILookup); ok && call == nil {
		if a, ok := al.ContractABI(d.To); ok {
			call = unpackCall(a, b)
		}
	}
	if call == nil {
		return
	}
	if lk != nil {
		call.Contract = lk.ContractName(d.To)
	}
	d.Call = call
	a := call.Args
	str := func(k string) string { s, _ := a[k].(string); return s }
	units := func(raw string) string {
		v, ok := new(big.Int).SetString(raw, 10)
		if !ok {
			return raw
		}
		return FormatUnits(v, tok.Decimals)
	}
	switch call.Standard + "." + call.Function {
	case ERC20 + ".transfer", ERC20 + ".transferFrom":
		d.Kind, d.Token, d.Recipient = KindTokenTransfer, &tok, str("to")
		d.AmountRaw, d.Amount = str("amount"), units(str("amount"))
	case ERC20 + ".approve", ERC20 + ".increaseAllowance":
		d.Kind, d.Token, d.Spender = KindTokenApproval, &tok, str("spender")
		raw := str("amount")
		if raw == "" {
			raw = str("addedValue")
		}
		d.AmountRaw, d.Amount = raw, units(raw)
	case ERC721 + ".transferFrom", ERC721 + ".safeTransferFrom":
		d.Kind, d.Recipient, d.TokenID = KindNFTTransfer, str("to"), str("tokenId")
	case ERC1155 + ".safeTransferFrom":
		d.Kind, d.Recipient, d.TokenID, d.AmountRaw, d.Amount = KindNFTTransfer, str("to"), str("id"), str("amount"), str("amount")
	case ERC1155 + ".safeBatchTransferFrom":
		d.Kind, d.Recipient = KindNFTTransfer, str("to")
	case ERC721 + ".approve":
		d.Kind, d.Spender, d.TokenID = KindNFTApproval, str("to"), str("tokenId")
	case ERC721 + ".setApprovalForAll":
		d.Kind, d.Spender = KindNFTApproval, str("operator")
	}
}

// decodeCall decodes calldata b with the standard interfaces: ERC-20's
// first when the contract is a token, else ERC-721's, then ERC-1155's.
func decodeCall(b []byte, token bool) *Call {
	order := []struct {
		std string
		abi abi.ABI
	}{{ERC721, erc721ABI}, {ERC1155, erc1155ABI}, {ERC20, erc20ABI}}
	if token {
		order[0], order[2] = order[2], order[0]
	}
	for _, o := range order {
		if c := unpackCall(o.abi, b); c != nil {
			c.Standard = o.std
			return c
		}
	}
	return nil
}

// unpackCall decodes calldata b with ABI a (nil when a has no function
// of b's selector, or the arguments do not unpack). An argument without
// a name is named by its position ("arg0").
func unpackCall(a abi.ABI, b []byte) *Call {
	m, err := a.MethodById(b[:4])
	if err != nil {
		return nil
	}
	vals, err := m.Inputs.Unpack(b[4:])
	if err != nil {
		return nil
	}
	args := map[string]any{}
	for i, in := range m.Inputs {
		if i < len(vals) {
			name := in.Name
			if name == "" {
				name = fmt.Sprintf("arg%d", i)
			}
			args[name] = jsonValue(vals[i])
		}
	}
	return &Call{Function: m.RawName, Signature: m.Sig, Args: args}
}

// jsonValue is an ABI value as JSON shows it: addresses checksummed,
// integers as decimal strings, bytes as hex.
func jsonValue(v any) any {
	switch x := v.(type) {
	case common.Address:
		return x.Hex()
	case *big.Int:
		return x.String()
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case []*big.Int:
		out := make([]string, len(x))
		for i, n := range x {
			out[i] = n.String()
		}
		return out
	case uint8, uint16, uint32, uint64, bool, string:
		return x
	}
	return fmt.Sprint(v)
}

// checksum is an address in its EIP-55 form ("" stays "").
func checksum(a string) string {
	if !common.IsHexAddress(a) {
		return a
	}
	return common.HexToAddress(a).Hex()
}

// hexText is personal_sign's message as text: hex of valid UTF-8 is
// decoded, anything else kept as sent.
func hexText(msg string) string {
	if !isHex(msg) || len(msg)%2 != 0 {
		return msg
	}
	b, err := hex.DecodeString(msg[2:])
	if err != nil || !utf8.Valid(b) {
		return msg
	}
	return string(b)
}

// typedData is eth_signTypedData_v4's data (a JSON string or an object)
// as structure.
func typedData(raw json.RawMessage) any {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return s
	}
	return v
}
