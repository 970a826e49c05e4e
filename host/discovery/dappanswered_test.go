package discovery

import (
	"testing"
	"time"

	"github.com/go-rod/rod"
)

// openDapp opens a page whose requests are captured (CaptureProvider) and
// whose own script sets window.ethereum to provider (JS) and then runs
// script.
func openDapp(t *testing.T, provider, script string) *rod.Page {
	t.Helper()
	p := open(t, "about:blank")
	ctx := p.Context(ctxT(t, 10*time.Second))
	if err := CaptureProvider(ctx); err != nil {
		t.Fatal(err)
	}
	body := `<p id="chain">none</p><p id="account">none</p><script>window.ethereum = ` + provider + `;` + script + `</script>`
	if err := ctx.Navigate(serve("<!doctype html><html><head><title>dapp</title></head><body>" + body + "</body></html>")); err != nil {
		t.Fatal(err)
	}
	if err := ctx.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	return p
}

// slowProvider answers every request 150 ms later; eth_requestAccounts and
// eth_blockNumber never.
const slowProvider = `{ request: ({ method }) => new Promise((resolve) => {
  if (method === 'eth_requestAccounts' || method === 'eth_blockNumber') return;
  setTimeout(() => resolve(method === 'eth_chainId' ? '0x539' : ['0xabc']), 150);
}) }`

// textOf is the visible text of the element selector finds (Text, as
// mm_get_text reads it).
func textOf(t *testing.T, p *rod.Page, selector string) string {
	t.Helper()
	res, err := Text(ctxT(t, 5*time.Second), p, nil, Target{Selector: selector}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text
}

// A dapp that asks its chain as it loads, and its accounts once it has
// it, is read once it has both: the wait follows the read its handler
// made after the first answer.
func TestDappAnsweredWaitsForChainedReads(t *testing.T) {
	p := openDapp(t, slowProvider, `
ethereum.request({ method: 'eth_chainId' }).then((c) => {
  document.getElementById('chain').textContent = c;
  return ethereum.request({ method: 'eth_accounts' });
}).then((a) => { document.getElementById('account').textContent = a[0]; });`)
	ok, err := DappAnswered(p.Context(ctxT(t, 10*time.Second)), 5*time.Second)
	if err != nil || !ok {
		t.Fatalf("DappAnswered = %v, %v; want true", ok, err)
	}
	if chain, account := textOf(t, p, "#chain"), textOf(t, p, "#account"); chain != "0x539" || account != "0xabc" {
		t.Fatalf("after the wait the dapp shows chain %q, account %q; want 0x539, 0xabc", chain, account)
	}
}

// A request that waits for the user (a connection) is not waited for: the
// wait ends at once, far within its bound (the call's own deadline would
// end it otherwise).
func TestDappAnsweredSkipsRequestsForTheUser(t *testing.T) {
	p := openDapp(t, slowProvider, `ethereum.request({ method: 'eth_requestAccounts' });`)
	ok, err := DappAnswered(p.Context(ctxT(t, 5*time.Second)), time.Minute)
	if err != nil || !ok {
		t.Fatalf("DappAnswered = %v, %v; want true at once", ok, err)
	}
}

// A read the wallet never answers ends the wait at its bound, false.
func TestDappAnsweredIsBounded(t *testing.T) {
	p := openDapp(t, slowProvider, `ethereum.request({ method: 'eth_blockNumber' });`)
	ok, err := DappAnswered(p.Context(ctxT(t, 10*time.Second)), 200*time.Millisecond)
	if err != nil || ok {
		t.Fatalf("DappAnswered = %v, %v; want false after its bound", ok, err)
	}
}

// A page without the capture (an extension page, a page opened before it)
// is read at once.
func TestDappAnsweredWithoutCapture(t *testing.T) {
	p := openHTML(t, `<script>window.ethereum = `+slowProvider+`; ethereum.request({ method: 'eth_chainId' });</script>`)
	ok, err := DappAnswered(p.Context(ctxT(t, 5*time.Second)), time.Minute)
	if err != nil || !ok {
		t.Fatalf("DappAnswered = %v, %v; want true at once", ok, err)
	}
}
