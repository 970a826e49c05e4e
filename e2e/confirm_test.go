package e2e

import (
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// confirmDapp serves a dapp page whose buttons make the EIP-1193 requests
// the confirmation tests answer: a connect through window.ethereum, a
// transaction whose to, value and data come from the page's query, and a
// personal_sign and a signTypedData_v4 through the EIP-6963 provider.
// #out shows the last answer ("error <code>" for an error).
func confirmDapp(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>confirm dapp</title></head><body>
<button data-testid="connect" onclick="ask(window.ethereum, 'eth_requestAccounts', [])">Connect</button>
<button data-testid="tx" onclick="ask(window.ethereum, 'eth_sendTransaction', [tx()])">Send</button>
<button data-testid="sign" onclick="ask(p6963, 'personal_sign', ['0x' + [...new TextEncoder().encode('Sign in to the confirm dapp')].map(b => b.toString(16).padStart(2, '0')).join(''), acct])">Sign</button>
<button data-testid="typed" onclick="ask(p6963, 'eth_signTypedData_v4', [acct, JSON.stringify(typed)])">Typed</button>
<span data-testid="out" id="out"></span>
<script>
let acct = '', p6963 = null;
window.addEventListener('eip6963:announceProvider', (e) => { p6963 = e.detail.provider; });
window.dispatchEvent(new Event('eip6963:requestProvider'));
const q = new URLSearchParams(location.search);
const tx = () => { const t = { from: acct, to: q.get('to') }; if (q.get('value')) t.value = q.get('value'); if (q.get('data')) t.data = q.get('data'); return t; };
const typed = { types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }], Mail: [{ name: 'contents', type: 'string' }, { name: 'count', type: 'uint256' }] },
  primaryType: 'Mail', domain: { name: 'Confirm Mail', chainId: 1337 }, message: { contents: 'Hello, Bob!', count: 3 } };
function ask(p, method, params) {
  const out = document.getElementById('out');
  out.textContent = '';
  p.request({ method, params }).then((r) => { if (method === 'eth_requestAccounts') acct = r[0]; out.textContent = typeof r === 'string' ? r : JSON.stringify(r); },
    (e) => { out.textContent = 'error ' + e.code; });
}
</script></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const recipient = "0x09781764C08DE8CA82E156bbf156A3ca217C7950"

// confirmation is what the tests read of mm_confirmation's answer.
type confirmation struct {
	Kind    string
	Origin  string
	Request *struct {
		Kind, To, Value, ValueWei, Recipient, Spender, Amount, AmountRaw, Message string
		ChainID                                                                   int64
		Token                                                                     *struct {
			Symbol   string
			Decimals int
		}
		Call *struct {
			Contract, Function string
			Args               map[string]any
		}
		TypedData map[string]any
	}
	Shown struct {
		To, Amount, Network, Message, Origin string
	}
	Mismatches []struct{ Field, Requested, Shown string }
}

type confirmAnswer struct {
	Action       string
	PopupClosed  bool
	Confirmation confirmation
	Dapp         *struct {
		Result any
		Error  *struct{ Code int }
	}
	Transaction *struct {
		Hash      string
		Status    int
		GasUsed   uint64
		Fee       string
		EthChange string
		Events    []struct {
			Standard, Name, Contract string
			Args                     map[string]any
		}
	}
}

func openConfirmDapp(t *testing.T, h *Host, srv *httptest.Server, q url.Values) {
	t.Helper()
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL + "/?" + q.Encode()}))
}

// TestConfirmTwoCalls: a dapp's connect, 1 ETH send, rejection, signatures
// and ERC-20 transfer and approve, each read with mm_confirmation and
// answered with mm_confirm, against the test wallet.
func TestConfirmTwoCalls(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	srv := confirmDapp(t)
	openConfirmDapp(t, h, srv, url.Values{"to": {recipient}, "value": {"0xde0b6b3a7640000"}})

	// A connect in one call (both steps).
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	var a confirmAnswer
	must(t, h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"kind": "connect"}})).Decode(t, fresh(&a))
	if !a.PopupClosed || a.Dapp == nil || !strings.EqualFold(fmt.Sprint(a.Dapp.Result), "["+account0+"]") {
		t.Fatalf("connect answer %+v dapp %+v", a, a.Dapp)
	}
	eventuallyText(t, h, "out", `["`+account0+`"]`)

	t.Run("send 1 ETH", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
		var c confirmation
		must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
		if c.Kind != "transfer" || c.Request == nil || c.Request.Value != "1" || !strings.EqualFold(c.Request.To, recipient) || c.Request.ChainID != 1337 ||
			!strings.EqualFold(c.Shown.To, recipient) || c.Shown.Amount != "1 ETH" || c.Shown.Network == "" || len(c.Mismatches) != 0 || !strings.HasPrefix(c.Origin, "http://127.0.0.1") {
			t.Fatalf("confirmation %+v request %+v", c, c.Request)
		}
		start := time.Now()
		env := must(t, h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"to": recipient, "value": "1", "chainId": 1337, "kind": "transfer"}}))
		took := time.Since(start)
		env.Decode(t, fresh(&a))
		tx := a.Transaction
		if tx == nil || tx.Status != 1 || tx.GasUsed != 21000 || a.Dapp == nil || a.Dapp.Result != tx.Hash {
			t.Fatalf("approve answer %+v tx %+v", a, tx)
		}
		fee, _ := new(big.Rat).SetString(tx.Fee)
		change, _ := new(big.Rat).SetString(tx.EthChange)
		want := new(big.Rat).Neg(new(big.Rat).Add(big.NewRat(1, 1), fee))
		if change == nil || change.Cmp(want) != 0 {
			t.Fatalf("ETH change %s, want -(1 + %s)", tx.EthChange, tx.Fee)
		}
		t.Logf("mm_confirm approve answered in %s (meta %d ms)", took, env.Meta.DurationMs)
		eventuallyText(t, h, "out", tx.Hash)
	})

	t.Run("reject gives the dapp 4001", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
		must(t, h.Call("mm_confirm", map[string]any{"action": "reject"})).Decode(t, fresh(&a))
		if a.Dapp == nil || a.Dapp.Error == nil || a.Dapp.Error.Code != 4001 || a.Transaction != nil {
			t.Fatalf("reject answer %+v", a)
		}
		eventuallyText(t, h, "out", "error 4001")
	})

	t.Run("personal_sign shown as text", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "sign"}))
		var c confirmation
		must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
		if c.Kind != "personal_sign" || c.Request.Message != "Sign in to the confirm dapp" || c.Shown.Message != "Sign in to the confirm dapp" || len(c.Mismatches) != 0 {
			t.Fatalf("confirmation %+v request %+v", c, c.Request)
		}
		must(t, h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"message": "Sign in to the confirm dapp"}})).Decode(t, fresh(&a))
		if sig, _ := a.Dapp.Result.(string); !strings.HasPrefix(sig, "0x") || len(sig) != 132 {
			t.Fatalf("signature %v", a.Dapp.Result)
		}
	})

	t.Run("typed data v4 shown as structure", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "typed"}))
		var c confirmation
		must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
		msg, _ := c.Request.TypedData["message"].(map[string]any)
		if c.Kind != "typed_data_v4" || c.Request.TypedData["primaryType"] != "Mail" || msg["contents"] != "Hello, Bob!" || !strings.Contains(c.Shown.Message, "Hello, Bob!") || len(c.Mismatches) != 0 {
			t.Fatalf("confirmation %+v request %+v", c, c.Request)
		}
		must(t, h.Call("mm_confirm", map[string]any{"action": "reject"})).Decode(t, fresh(&a))
		if a.Dapp == nil || a.Dapp.Error == nil || a.Dapp.Error.Code != 4001 {
			t.Fatalf("reject answer %+v", a)
		}
	})

	t.Run("ERC-20 transfer and approve decoded", func(t *testing.T) {
		var dep struct{ ContractAddress string }
		must(t, h.Call("mm_seed_contract", map[string]any{"contractName": "hst"})).Decode(t, &dep)
		// transfer(recipient, 5) and approve(recipient, 7): TST has 4 decimals.
		call := func(sel string, n int64) string {
			return sel + strings.Repeat("0", 24) + strings.ToLower(strings.TrimPrefix(recipient, "0x")) + fmt.Sprintf("%064x", n)
		}
		openConfirmDapp(t, h, srv, url.Values{"to": {dep.ContractAddress}, "data": {call("0xa9059cbb", 5)}})
		must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
		var c confirmation
		must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
		r := c.Request
		if c.Kind != "token_transfer" || !strings.EqualFold(r.Recipient, recipient) || r.Amount != "0.0005" || r.AmountRaw != "5" || r.Token == nil || r.Token.Symbol != "TST" || r.Token.Decimals != 4 || r.Call.Contract != "hst" || r.Call.Function != "transfer" || len(c.Mismatches) != 0 {
			t.Fatalf("confirmation %+v request %+v", c, r)
		}
		must(t, h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"recipient": recipient, "amount": "0.0005"}})).Decode(t, fresh(&a))
		if a.Transaction == nil || a.Transaction.Status != 1 || len(a.Transaction.Events) != 1 || a.Transaction.Events[0].Name != "Transfer" || a.Transaction.Events[0].Args["value"] != "5" {
			t.Fatalf("transfer answer %+v", a.Transaction)
		}

		openConfirmDapp(t, h, srv, url.Values{"to": {dep.ContractAddress}, "data": {call("0x095ea7b3", 7)}})
		must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
		must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
		if c.Kind != "token_approval" || !strings.EqualFold(c.Request.Spender, recipient) || c.Request.Amount != "0.0007" {
			t.Fatalf("confirmation %+v request %+v", c, c.Request)
		}
		must(t, h.Call("mm_confirm", map[string]any{"action": "approve"})).Decode(t, fresh(&a))
		if a.Transaction == nil || a.Transaction.Status != 1 || len(a.Transaction.Events) != 1 || a.Transaction.Events[0].Name != "Approval" {
			t.Fatalf("approve answer %+v", a.Transaction)
		}

		// hst's own mint(address,uint256), in no standard interface: decoded
		// with the ABI the contract registry keeps for it.
		openConfirmDapp(t, h, srv, url.Values{"to": {dep.ContractAddress}, "data": {call("0x40c10f19", 9)}})
		must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
		must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
		if c.Kind != "contract_call" || c.Request.Call == nil || c.Request.Call.Function != "mint" || c.Request.Call.Contract != "hst" ||
			!strings.EqualFold(fmt.Sprint(c.Request.Call.Args["to"]), recipient) || c.Request.Call.Args["amount"] != "9" {
			t.Fatalf("confirmation %+v request %+v", c, c.Request)
		}
		must(t, h.Call("mm_confirm", map[string]any{"action": "reject"}))
	})
	must(t, h.Call("mm_cleanup", map[string]any{}))
}

// fresh empties a for the next answer (decoding leaves absent fields).
func fresh(a *confirmAnswer) *confirmAnswer {
	*a = confirmAnswer{}
	return a
}

// TestConfirmLyingWallet: a test wallet whose fixture makes its screen
// show another recipient than the dapp asked. mm_confirmation names the
// recipient in mismatches; mm_confirm approve with an expect matching the
// dapp's request refuses with MM_EXPECTATION_FAILED, nothing is sent, and
// the popup is still there to reject.
func TestConfirmLyingWallet(t *testing.T) {
	const liar = "0x000000000000000000000000000000000000dEaD"
	h, _ := walletHost(t)
	launchBehaving(t, h, map[string]any{"confirmationShows": map[string]any{"to": liar}})
	rpc := chainURL(t, h)
	srv := confirmDapp(t)
	openConfirmDapp(t, h, srv, url.Values{"to": {recipient}, "value": {"0xde0b6b3a7640000"}})
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_confirm", map[string]any{"action": "approve"}))
	eventuallyText(t, h, "out", `["`+account0+`"]`)

	var nonceBefore, nonceAfter string
	ethRPC(t, rpc, "eth_getTransactionCount", &nonceBefore, account0, "latest")
	must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
	var c confirmation
	must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
	if len(c.Mismatches) != 1 || c.Mismatches[0].Field != "to" || !strings.EqualFold(c.Mismatches[0].Requested, recipient) || c.Mismatches[0].Shown != liar {
		t.Fatalf("mismatches %+v (shown %+v)", c.Mismatches, c.Shown)
	}
	env := h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"to": recipient, "value": "1"}})
	wantCode(t, env, "MM_EXPECTATION_FAILED")
	if !strings.Contains(env.Error.Message, "to:") || !strings.Contains(jsonOf(env.Error.Details["mismatches"]), liar) {
		t.Fatalf("refusal %+v", env.Error)
	}
	var a confirmAnswer
	must(t, h.Call("mm_confirm", map[string]any{"action": "reject"})).Decode(t, &a)
	if a.Dapp == nil || a.Dapp.Error == nil || a.Dapp.Error.Code != 4001 {
		t.Fatalf("reject after the refusal %+v", a)
	}
	ethRPC(t, rpc, "eth_getTransactionCount", &nonceAfter, account0, "latest")
	if nonceAfter != nonceBefore {
		t.Fatalf("nonce %s -> %s: something was sent", nonceBefore, nonceAfter)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}

// BenchmarkConfirmApprove: mm_confirm approve of a dapp's 1 ETH send, from
// call to answer (receipt included), 10 times in one session; reports the
// median. Target: <= 1500 ms.
func BenchmarkConfirmApprove(b *testing.B) {
	h, _ := walletHost(b)
	launch(b, h, map[string]any{"stateMode": "default"})
	srv := confirmDapp(b)
	must(b, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL + "/?" + url.Values{"to": {recipient}, "value": {"0x1"}}.Encode()}))
	must(b, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(b, h.Call("mm_confirm", map[string]any{"action": "approve"}))
	for b.Loop() {
		var ds []time.Duration
		for range 10 {
			must(b, h.Call("mm_click", map[string]any{"testId": "tx"}))
			start := time.Now()
			env := must(b, h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"to": recipient}}))
			ds = append(ds, time.Since(start))
			var a confirmAnswer
			env.Decode(b, &a)
			if a.Transaction == nil || a.Transaction.Status != 1 {
				b.Fatalf("approve answer %+v", a)
			}
		}
		b.ReportMetric(median(ds), "median-ms")
	}
	must(b, h.Call("mm_cleanup", map[string]any{}))
}

// TestConfirmStaleRequest: a dapp page that asked for a 2 ETH send and
// then navigated away leaves no pending request behind: the wallet's
// popup for it still answers, but mm_confirmation then reads the new
// page's 1 ETH send, not the old one; with everything answered,
// mm_confirmation answers MM_NO_CONFIRMATION at once, naming the last
// request.
func TestConfirmStaleRequest(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	srv := confirmDapp(t)
	openConfirmDapp(t, h, srv, url.Values{"to": {recipient}, "value": {"0x1bc16d674ec80000"}}) // 2 ETH
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_confirm", map[string]any{"action": "approve"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{}))
	// The dapp's page goes elsewhere while the wallet shows its request.
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	openConfirmDapp(t, h, srv, url.Values{"to": {recipient}, "value": {"0xde0b6b3a7640000"}}) // 1 ETH
	var a confirmAnswer
	must(t, h.Call("mm_confirm", map[string]any{"action": "reject"})).Decode(t, fresh(&a))
	if a.Confirmation.Request != nil || a.Dapp != nil {
		t.Fatalf("the abandoned request was taken for the popup's: %+v", a)
	}

	must(t, h.Call("mm_click", map[string]any{"testId": "connect"})) // a new page asks again
	eventuallyText(t, h, "out", `["`+account0+`"]`)
	must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
	var c confirmation
	must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
	if c.Request == nil || c.Request.Value != "1" || len(c.Mismatches) != 0 {
		t.Fatalf("confirmation %+v request %+v", c, c.Request)
	}
	must(t, h.Call("mm_confirm", map[string]any{"action": "reject"}))
	eventuallyText(t, h, "out", "error 4001")

	start := time.Now()
	env := h.Call("mm_confirmation", map[string]any{})
	wantCode(t, env, "MM_NO_CONFIRMATION")
	if took := time.Since(start); took > 5*time.Second || !strings.Contains(env.Error.Message, "eth_sendTransaction") || !strings.Contains(env.Error.Message, "mm_click") {
		t.Fatalf("nothing pending answered in %s: %+v", took, env.Error)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
