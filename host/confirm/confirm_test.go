package confirm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

type fakeLookup struct{ tokens map[string]Token }

func (f fakeLookup) Token(_ context.Context, a string) (Token, bool) {
	t, ok := f.tokens[strings.ToLower(a)]
	return t, ok
}
func (f fakeLookup) ContractName(a string) string {
	if _, ok := f.tokens[strings.ToLower(a)]; ok {
		return "hst"
	}
	return ""
}

const (
	hst   = "0x581c3c1a2a4ebde2a0df29b5cf4c116e42945947"
	alice = "0x2f318C334780961FB129D2a6c30D0763d9a5C970"
)

func req(method string, params ...any) Request {
	b, _ := json.Marshal(params)
	return Request{ID: "1", Method: method, Params: b, Origin: "http://127.0.0.1:8080"}
}

func calldata(t *testing.T, method string, args ...any) string {
	t.Helper()
	b, err := erc20ABI.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(b)
}

func TestDecodeETHTransfer(t *testing.T) {
	d := Decode(context.Background(), req("eth_sendTransaction", map[string]string{"to": strings.ToLower(alice), "value": "0xde0b6b3a7640000"}), 1337, nil)
	if d.Kind != KindTransfer || d.Value != "1" || d.ValueWei != "1000000000000000000" || d.To != alice || d.ChainID != 1337 {
		t.Fatalf("decoded %+v", d)
	}
	if ms := Mismatches(d, Shown{To: alice, Amount: "1 ETH", Origin: "http://127.0.0.1:8080"}); len(ms) != 0 {
		t.Fatalf("mismatches %v", ms)
	}
	ms := Mismatches(d, Shown{To: "0x0000000000000000000000000000000000000bad", Amount: "2 ETH"})
	if Fields(ms) != "to, value" {
		t.Fatalf("mismatches %v", ms)
	}
}

func TestDecodeERC20(t *testing.T) {
	lk := fakeLookup{tokens: map[string]Token{hst: {Address: hst, Symbol: "TST", Decimals: 4}}}
	amount := big.NewInt(15000) // 1.5 TST
	d := Decode(context.Background(), req("eth_sendTransaction", map[string]string{"to": hst, "data": calldata(t, "transfer", common.HexToAddress(alice), amount)}), 0, lk)
	if d.Kind != KindTokenTransfer || d.Recipient != alice || d.Amount != "1.5" || d.AmountRaw != "15000" || d.Token.Symbol != "TST" || d.Call.Contract != "hst" || d.Call.Function != "transfer" {
		t.Fatalf("decoded %+v call %+v", d, d.Call)
	}
	d = Decode(context.Background(), req("eth_sendTransaction", map[string]string{"to": hst, "data": calldata(t, "approve", common.HexToAddress(alice), big.NewInt(70000))}), 0, lk)
	if d.Kind != KindTokenApproval || d.Spender != alice || d.Amount != "7" {
		t.Fatalf("decoded %+v", d)
	}
	// Without a token answer, approve(address,uint256) is ERC-721's.
	d = Decode(context.Background(), req("eth_sendTransaction", map[string]string{"to": hst, "data": calldata(t, "approve", common.HexToAddress(alice), big.NewInt(7))}), 0, fakeLookup{})
	if d.Kind != KindNFTApproval || d.TokenID != "7" {
		t.Fatalf("decoded %+v", d)
	}
	if ms := (Expect{Amount: "1.5", Spender: alice}).Check(d, Shown{}); Fields(ms) != "spender, amount" && Fields(ms) != "amount" {
		t.Fatalf("expect check %v", ms)
	}
}

func TestDecodeSignatures(t *testing.T) {
	d := Decode(context.Background(), req("personal_sign", "0x"+hex.EncodeToString([]byte("Example `personal_sign` message")), alice), 0, nil)
	if d.Kind != KindPersonalSign || d.Message != "Example `personal_sign` message" || d.Account != alice {
		t.Fatalf("decoded %+v", d)
	}
	if ms := Mismatches(d, Shown{Message: "Example  `personal_sign`\nmessage"}); len(ms) != 0 {
		t.Fatalf("mismatches %v", ms)
	}
	td := `{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Mail":[{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Ether Mail"},"message":{"contents":"Hello, Bob!","n":3}}`
	d = Decode(context.Background(), req("eth_signTypedData_v4", alice, td), 0, nil)
	m, ok := d.TypedData.(map[string]any)
	if d.Kind != KindTypedData || !ok || m["primaryType"] != "Mail" {
		t.Fatalf("decoded %+v", d)
	}
	if ms := Mismatches(d, Shown{Message: "{\n  \"contents\": \"Hello, Bob!\", \"n\": 3\n}"}); len(ms) != 0 {
		t.Fatalf("mismatches %v", ms)
	}
	if ms := Mismatches(d, Shown{Message: `{"contents":"Hello, Eve!","n":3}`}); Fields(ms) != "message" {
		t.Fatalf("mismatches %v", ms)
	}
}

func TestExpectNamesEachField(t *testing.T) {
	d := Decode(context.Background(), req("eth_sendTransaction", map[string]string{"to": alice, "value": "0xde0b6b3a7640000"}), 1337, nil)
	chain := int64(1337)
	if ms := (Expect{Kind: "transfer", To: alice, Value: "1", ChainID: &chain}).Check(d, Shown{To: alice, Amount: "1 ETH"}); len(ms) != 0 {
		t.Fatalf("matching expect refused: %v", ms)
	}
	// The wallet lies about the recipient: the request matches, the screen does not.
	ms := (Expect{To: alice, Value: "1"}).Check(d, Shown{To: "0x000000000000000000000000000000000000dEaD", Amount: "1 ETH"})
	if Fields(ms) != "to" || ms[0].Shown == "" {
		t.Fatalf("expect check %v", ms)
	}
	other := int64(1)
	if ms := (Expect{Kind: "personal_sign", Value: "2", ChainID: &other}).Check(d, Shown{}); Fields(ms) != "kind, value, chainId" {
		t.Fatalf("expect check %v", ms)
	}
}

func TestSameAddressShortened(t *testing.T) {
	if !SameAddress("0x5cfe73b6021e818b776b421b1c4db2474086a7e1", "0x5CfE7…6a7e1") || SameAddress("0x5cfe73b6021e818b776b421b1c4db2474086a7e1", "0x5CfE7…6a7e2") {
		t.Fatal("shortened address compare")
	}
}

func TestDecodeEvents(t *testing.T) {
	pad := func(a string) string {
		return "0x" + strings.Repeat("0", 24) + strings.TrimPrefix(strings.ToLower(a), "0x")
	}
	transfer := erc20ABI.Events["Transfer"].ID.Hex()
	evs := DecodeEvents([]ReceiptLog{
		{Address: hst, Topics: []string{transfer, pad(alice), pad(hst)}, Data: "0x" + common.Bytes2Hex(common.LeftPadBytes(big.NewInt(15000).Bytes(), 32))},
		{Address: hst, Topics: []string{transfer, pad(alice), pad(hst), "0x" + common.Bytes2Hex(common.LeftPadBytes(big.NewInt(3).Bytes(), 32))}, Data: "0x"},
	})
	if len(evs) != 2 || evs[0].Standard != ERC20 || evs[0].Args["value"] != "15000" || evs[0].Args["from"] != alice || evs[1].Standard != ERC721 || evs[1].Args["tokenId"] != "3" {
		t.Fatalf("events %+v", evs)
	}
}

func TestLogKeepsAnswersBounded(t *testing.T) {
	l := NewLog()
	l.Add(`{"id":"a","phase":"call","method":"eth_sendTransaction","params":[{"to":"0x1"}],"origin":"http://x"}`)
	l.Add(`{"id":"b","phase":"call","method":"eth_chainId","origin":"http://x"}`)
	if p := l.Pending(); len(p) != 1 || p[0].ID != "a" {
		t.Fatalf("pending %+v", p)
	}
	done := make(chan Request)
	go func() {
		r, _ := l.WaitAnswered(context.Background(), "a")
		done <- r
	}()
	l.Add(`{"id":"a","phase":"error","error":{"code":4001,"message":"User rejected the request."}}`)
	select {
	case r := <-done:
		if r.Error == nil || r.Error.Code != 4001 {
			t.Fatalf("answer %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitAnswered never returned")
	}
	// A secret-shaped string in params is masked; hex data is kept.
	phrase := "legal winner thank year wave sausage worth useful legal winner thank yellow"
	l.Add(`{"id":"c","phase":"call","method":"personal_sign","params":["` + phrase + `","0xdeadbeef"],"origin":"http://x"}`)
	r, _ := l.Get("c")
	if strings.Contains(string(r.Params), "sausage") || !strings.Contains(string(r.Params), "0xdeadbeef") {
		t.Fatalf("params kept %s", r.Params)
	}
	for i := 0; i < MaxRequests+10; i++ {
		l.Add(`{"id":"n` + string(rune('a'+i%26)) + big.NewInt(int64(i)).String() + `","phase":"call","method":"eth_chainId"}`)
	}
	if n := len(l.All()); n != MaxRequests {
		t.Fatalf("log holds %d", n)
	}
}

// TestLogForgetsRequestsOfGonePages: a request whose page navigated or
// closed before its answer is no longer pending (the wallet's answer
// cannot reach it), and a waiter for it returns; other documents'
// requests stay pending.
func TestLogForgetsRequestsOfGonePages(t *testing.T) {
	l := NewLog()
	l.AddFrom("page1/7", `{"id":"a","phase":"call","method":"eth_sendTransaction","params":[{"to":"0x1"}],"origin":"http://x"}`)
	l.AddFrom("page1/9", `{"id":"b","phase":"call","method":"personal_sign","params":["0x68656c6c6f","0x1"],"origin":"http://x"}`)
	l.AddFrom("page2/3", `{"id":"c","phase":"call","method":"eth_sendTransaction","params":[{"to":"0x2"}],"origin":"http://y"}`)
	done := make(chan Request)
	go func() {
		r, _ := l.WaitAnswered(context.Background(), "a")
		done <- r
	}()
	l.Gone("page1/7") // its document went (a navigation)
	select {
	case r := <-done:
		if !r.Abandoned || r.Answered() {
			t.Fatalf("request a %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitAnswered never returned for a request whose page went")
	}
	if p := l.Pending(); len(p) != 2 || p[0].ID != "b" || p[1].ID != "c" {
		t.Fatalf("pending %+v", p)
	}
	l.Gone("page1/") // the page closed
	if p := l.Pending(); len(p) != 1 || p[0].ID != "c" {
		t.Fatalf("pending %+v", p)
	}
}

// TestDecodeWithDeployedABI: calldata of a function no standard
// interface has is decoded with the deployed contract's ABI, by function
// name and arguments; without the ABI it stays undecoded.
func TestDecodeWithDeployedABI(t *testing.T) {
	const abiJSON = `[{"type":"function","name":"mint","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]},{"type":"function","name":"withdraw","inputs":[{"name":"","type":"uint256"}]}]`
	a := mustABI(abiJSON)
	data, err := a.Pack("mint", common.HexToAddress(alice), big.NewInt(5))
	if err != nil {
		t.Fatal(err)
	}
	r := req("eth_sendTransaction", map[string]string{"to": hst, "data": "0x" + hex.EncodeToString(data)})
	lk := ChainLookup{Names: map[string]string{hst: "hst"}, ABIs: map[string]string{hst: abiJSON}}
	d := Decode(context.Background(), r, 1337, lk)
	if d.Kind != KindContractCall || d.Call == nil || d.Call.Function != "mint" || d.Call.Contract != "hst" || d.Call.Signature != "mint(address,uint256)" ||
		d.Call.Args["to"] != alice || d.Call.Args["amount"] != "5" {
		t.Fatalf("decoded %+v call %+v", d, d.Call)
	}
	data, _ = a.Pack("withdraw", big.NewInt(7))
	d = Decode(context.Background(), req("eth_sendTransaction", map[string]string{"to": hst, "data": "0x" + hex.EncodeToString(data)}), 0, lk)
	if d.Call == nil || d.Call.Function != "withdraw" || d.Call.Args["arg0"] != "7" {
		t.Fatalf("unnamed argument: %+v", d.Call)
	}
	if d := Decode(context.Background(), r, 1337, ChainLookup{Names: map[string]string{hst: "hst"}}); d.Call != nil {
		t.Fatalf("decoded without the ABI: %+v", d.Call)
	}
}
