package flows

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
)

// TxSpec is one transaction expect.transactions lists: each field given
// must hold for the transaction the wallet sent in its place.
type TxSpec struct {
	// Kind is a confirmation kind (transfer, token_transfer, ...), or
	// "transaction" for any.
	Kind string `json:"kind,omitempty"`
	To   string `json:"to,omitempty"`
	// Value is the ether value in ETH, decimal.
	Value string `json:"value,omitempty"`
	// Function is the called function's name.
	Function string `json:"function,omitempty"`
	// Status is the receipt's status (1 succeeded, 0 reverted).
	Status *int        `json:"status,omitempty"`
	Events []EventSpec `json:"events,omitempty"`
}

// EventSpec is an event a transaction's receipt must hold.
type EventSpec struct {
	Name     string         `json:"name"`
	Standard string         `json:"standard,omitempty"`
	Contract string         `json:"contract,omitempty"`
	Args     map[string]any `json:"args,omitempty"`
}

// sentTx is a transaction the wallet sent, decoded, with its receipt.
type sentTx struct {
	Hash   string
	D      confirm.Decoded
	Status int
	Events []confirm.Event
}

func (t sentTx) String() string {
	s := t.D.Kind
	if t.D.To != "" {
		s += " to " + t.D.To
	}
	if t.D.Value != "" && t.D.Value != "0" {
		s += " value " + t.D.Value
	}
	if t.D.Call != nil {
		s += " " + t.D.Call.Function + "()"
	}
	s += fmt.Sprintf(" status %d", t.Status)
	if len(t.Events) > 0 {
		names := make([]string, len(t.Events))
		for i, e := range t.Events {
			names[i] = e.Name
		}
		s += " events " + strings.Join(names, ",")
	}
	return s
}

// checkTransactions compares the transactions the wallet's account sent
// since v.since with want, in order.
func (v *view) checkTransactions(ctx context.Context, want []TxSpec) error {
	sent, err := v.sentTransactions(ctx)
	if err != nil {
		return err
	}
	list := func() string {
		if len(sent) == 0 {
			return "none"
		}
		parts := make([]string, len(sent))
		for i, t := range sent {
			parts[i] = fmt.Sprintf("#%d %s", i+1, t)
		}
		return strings.Join(parts, "; ")
	}
	if len(sent) != len(want) {
		return fmt.Errorf("the wallet sent %d transactions, want %d (sent: %s)", len(sent), len(want), list())
	}
	var diffs []string
	for i, w := range want {
		if d := w.diff(sent[i]); d != "" {
			diffs = append(diffs, fmt.Sprintf("#%d %s (sent %s)", i+1, d, sent[i]))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

// diff says how t differs from w ("" when it matches).
func (w TxSpec) diff(t sentTx) string {
	var out []string
	if w.Kind != "" && w.Kind != t.D.Kind && !(w.Kind == "transaction" && confirm.IsTransaction(t.D.Kind)) {
		out = append(out, fmt.Sprintf("kind is %s, want %s", t.D.Kind, w.Kind))
	}
	if w.To != "" && !strings.EqualFold(w.To, t.D.To) {
		out = append(out, fmt.Sprintf("to is %s, want %s", t.D.To, w.To))
	}
	if w.Value != "" && !sameDecimal(w.Value, t.D.Value) {
		out = append(out, fmt.Sprintf("value is %s ETH, want %s", or0(t.D.Value), w.Value))
	}
	if w.Function != "" && (t.D.Call == nil || t.D.Call.Function != w.Function) {
		got := "none decoded"
		if t.D.Call != nil {
			got = t.D.Call.Function
		}
		out = append(out, fmt.Sprintf("function is %s, want %s", got, w.Function))
	}
	if w.Status != nil && *w.Status != t.Status {
		out = append(out, fmt.Sprintf("status is %d, want %d", t.Status, *w.Status))
	}
	for _, e := range w.Events {
		if !e.in(t.Events) {
			out = append(out, fmt.Sprintf("no event %s", e))
		}
	}
	return strings.Join(out, ", ")
}

func (e EventSpec) String() string {
	if len(e.Args) == 0 {
		return e.Name
	}
	b, _ := json.Marshal(e.Args)
	return e.Name + string(b)
}

// in reports whether one of evs is e.
func (e EventSpec) in(evs []confirm.Event) bool {
next:
	for _, ev := range evs {
		if ev.Name != e.Name || (e.Standard != "" && ev.Standard != e.Standard) || (e.Contract != "" && !strings.EqualFold(ev.Contract, e.Contract)) {
			continue
		}
		for k, want := range e.Args {
			got, ok := ev.Args[k]
			if !ok || !sameArg(want, got) {
				continue next
			}
		}
		return true
	}
	return false
}

// sameArg compares an expected event argument with a decoded one:
// strings case-insensitively (addresses), numbers as decimals.
func sameArg(want, got any) bool {
	w, g := fmt.Sprint(want), fmt.Sprint(got)
	if f, ok := want.(float64); ok {
		w = new(big.Float).SetFloat64(f).Text('f', -1)
	}
	return strings.EqualFold(w, g)
}

func sameDecimal(a, b string) bool {
	x, ok1 := new(big.Rat).SetString(or0(a))
	y, ok2 := new(big.Rat).SetString(or0(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

func or0(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// sentTransactions are the transactions of the wallet's account since
// v.since on the session's chain (mined after its block, with a nonce not
// below its nonce), oldest first, decoded.
func (v *view) sentTransactions(ctx context.Context) ([]sentTx, error) {
	var chain struct {
		RPCURL string `json:"rpcUrl"`
	}
	if err := v.load(ctx, ToolChainStatus, map[string]any{}, &chain); err != nil {
		return nil, err
	}
	st, err := v.getState(ctx)
	if err != nil {
		return nil, err
	}
	account := ""
	if st.AccountAddress != nil {
		account = *st.AccountAddress
	}
	url := chain.RPCURL
	latest, err := quantity(ctx, url, "eth_blockNumber", nil)
	if err != nil {
		return nil, err
	}
	lk := confirm.ChainLookup{URL: url}
	var out []sentTx
	for n := v.since.block + 1; n <= latest; n++ {
		var block struct {
			Transactions []struct {
				Hash, From, To, Value, Input, Nonce string
			} `json:"transactions"`
		}
		if err := jsonrpc.Call(ctx, url, "eth_getBlockByNumber", []any{fmt.Sprintf("0x%x", n), true}, &block); err != nil {
			return nil, err
		}
		for _, tx := range block.Transactions {
			if account != "" && !strings.EqualFold(tx.From, account) {
				continue
			}
			if nonce, ok := hexUint(tx.Nonce); ok && nonce < v.since.nonce {
				continue // sent before the flow, mined since
			}
			params, _ := json.Marshal([]map[string]string{{"from": tx.From, "to": tx.To, "value": tx.Value, "data": tx.Input}})
			d := confirm.Decode(ctx, confirm.Request{Method: "eth_sendTransaction", Params: params}, 0, lk)
			var rc struct {
				Status string               `json:"status"`
				Logs   []confirm.ReceiptLog `json:"logs"`
			}
			if err := jsonrpc.Call(ctx, url, "eth_getTransactionReceipt", []any{tx.Hash}, &rc); err != nil {
				return nil, err
			}
			out = append(out, sentTx{Hash: tx.Hash, D: d, Status: map[bool]int{true: 1, false: 0}[rc.Status == "0x1"], Events: confirm.DecodeEvents(rc.Logs)})
		}
	}
	return out, nil
}

// txStart is where a flow's transactions start: the chain's block as its
// steps start, and the wallet account's next nonce then, its pending
// transactions counted. A transaction the account sent before the flow
// and still pending then is mined after that block, but is not the flow's:
// its nonce is lower. The zero txStart counts every transaction of the
// account.
type txStart struct {
	block uint64
	nonce uint64
}

// firstTx is where the flow's transactions start, when its expectations
// check transactions (the zero txStart otherwise): the chain's block
// number and the account's pending transaction count as the steps start.
func (e *Expect) firstTx(ctx context.Context, c Caller) (txStart, error) {
	if e == nil || len(e.Transactions) == 0 {
		return txStart{}, nil
	}
	v := &view{c: c}
	var chain struct {
		RPCURL string `json:"rpcUrl"`
	}
	if err := v.load(ctx, ToolChainStatus, map[string]any{}, &chain); err != nil {
		return txStart{}, err
	}
	st, err := v.getState(ctx)
	if err != nil {
		return txStart{}, err
	}
	var start txStart
	if start.block, err = quantity(ctx, chain.RPCURL, "eth_blockNumber", nil); err != nil {
		return txStart{}, err
	}
	if st.AccountAddress != nil && *st.AccountAddress != "" {
		if start.nonce, err = quantity(ctx, chain.RPCURL, "eth_getTransactionCount", []any{*st.AccountAddress, "pending"}); err != nil {
			return txStart{}, err
		}
	}
	return start, nil
}

// quantity calls method on the chain at url for a hex quantity.
func quantity(ctx context.Context, url, method string, params []any) (uint64, error) {
	var hex string
	if err := jsonrpc.Call(ctx, url, method, params, &hex); err != nil {
		return 0, err
	}
	n, ok := hexUint(hex)
	if !ok {
		return 0, fmt.Errorf("%s: %q is not a quantity", method, hex)
	}
	return n, nil
}

// hexUint is the JSON-RPC hex quantity s as a uint64: ok false when it is
// not one or does not fit.
func hexUint(s string) (uint64, bool) {
	n, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
	if !ok || !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}
