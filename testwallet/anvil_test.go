package testwallet_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// dappEval runs window.ethereum.request in the dapp page and returns
// {r: result} or {code, message}.
func dappEval(p *rod.Page, method string, params string) (map[string]any, error) {
	js := `(method, params) => window.ethereum.request({method, params: JSON.parse(params)})
		.then(r => ({r}), e => ({code: e.code, message: e.message}))`
	res, err := p.Timeout(30*time.Second).Eval(js, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	var out map[string]any
	return out, res.Value.Unmarshal(&out)
}

func dappCall(t *testing.T, p *rod.Page, method string, params string) map[string]any {
	t.Helper()
	out, err := dappEval(p, method, params)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// async starts dappEval in the background.
func async(p *rod.Page, method, params string) <-chan map[string]any {
	ch := make(chan map[string]any, 1)
	go func() {
		out, err := dappEval(p, method, params)
		if err != nil {
			out = map[string]any{"evalError": err.Error()}
		}
		ch <- out
	}()
	return ch
}

func wait(t *testing.T, ch <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("dapp request never settled")
		return nil
	}
}

func TestDappConnectAndSendThroughPopups(t *testing.T) {
	rpcURL := startAnvil(t)
	serveFixture(t, legacyFixture(encryptVault(t, password, 10000, hdKeyrings()), rpcURL))
	w := startWallet(t)

	home := w.open(t, "home.html")
	typeInto(t, home, "unlock-password", password)
	click(t, home, "unlock-submit")
	waitText(t, home, "eth-overview__primary-currency", func(s string) bool { return s == "25 ETH" })
	click(t, home, "global-menu-lock")
	waitRoute(t, home, "#unlock")

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<!doctype html><title>dapp</title><h1>dapp</h1>"))
	}))
	defer site.Close()
	dapp, err := w.browser.Page(proto.TargetCreateTarget{URL: site.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := dapp.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	if got := dappCall(t, dapp, "eth_chainId", "[]"); got["r"] != "0x539" {
		t.Errorf("eth_chainId = %v", got)
	}
	if got := dappCall(t, dapp, "eth_accounts", "[]"); len(got["r"].([]any)) != 0 {
		t.Errorf("eth_accounts before connecting = %v, want []", got)
	}

	// Cancel: the dapp gets 4001. The popup opens on bare notification.html.
	ch := async(dapp, "eth_requestAccounts", "[]")
	popup := w.waitPage(t, "notification.html")
	typeInto(t, popup, "unlock-password", password) // locked: unlock first
	click(t, popup, "unlock-submit")
	w.clickClosing(t, popup, "page-container-footer-cancel")
	if got := wait(t, ch); got["code"] != float64(4001) {
		t.Errorf("cancelled connect = %v, want code 4001", got)
	}
	w.waitGone(t, popup)

	// Connect takes two steps, as in MetaMask: Next, then Confirm.
	ch = async(dapp, "eth_requestAccounts", "[]")
	popup = w.waitPage(t, "notification.html")
	if txt := waitText(t, popup, "page-container-footer-next", func(s string) bool { return s != "" }); txt != "Next" {
		t.Errorf("first connect step's button %q, want Next", txt)
	}
	if !strings.Contains(popupURL(t, popup), "#connect/") {
		t.Errorf("connect popup routed to %s", popupURL(t, popup))
	}
	click(t, popup, "page-container-footer-next")
	waitRoute(t, popup, "/confirm-permissions")
	if txt := waitText(t, popup, "page-container-footer-next", func(s string) bool { return s == "Confirm" }); txt != "Confirm" {
		t.Errorf("second connect step's button %q, want Confirm", txt)
	}
	w.clickClosing(t, popup, "page-container-footer-next")
	got := wait(t, ch)
	if accts, _ := got["r"].([]any); len(accts) != 1 || !strings.EqualFold(accts[0].(string), account0) {
		t.Fatalf("eth_requestAccounts = %v, want [%s]", got, account0)
	}
	w.waitGone(t, popup)

	// Closing the window rejects.
	tx := `[{"from":"` + account0 + `","to":"` + account1 + `","value":"0xde0b6b3a7640000"}]`
	ch = async(dapp, "eth_sendTransaction", tx)
	popup = w.waitPage(t, "notification.html")
	el(t, popup, "page-container-footer-next")
	waitRoute(t, popup, "#confirm-transaction/"+requestID(t, popup))
	if err := popup.Close(); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, ch); got["code"] != float64(4001) {
		t.Errorf("closed transaction popup = %v, want code 4001", got)
	}

	// Confirm: the node mines it and the wallet closes the popup.
	ch = async(dapp, "eth_sendTransaction", tx)
	popup = w.waitPage(t, "notification.html")
	w.clickClosing(t, popup, "page-container-footer-next")
	got = wait(t, ch)
	hash, _ := got["r"].(string)
	if len(hash) != 66 {
		t.Fatalf("eth_sendTransaction = %v, want a tx hash", got)
	}
	if status := waitReceipt(t, rpcURL, hash); status != "0x1" {
		t.Errorf("receipt status %q, want 0x1", status)
	}
	w.waitGone(t, popup)

	// The home page follows the chain: 25 - 1 ETH - gas.
	waitText(t, home, "eth-overview__primary-currency", func(s string) bool { return strings.HasPrefix(s, "23.99") })
}

func TestOnboardingImportUsesTheNodeAccount(t *testing.T) {
	rpcURL := startAnvil(t)
	serveFixture(t, legacyFixture("", rpcURL))
	w := startWallet(t)
	p := w.open(t, "home.html")
	waitRoute(t, p, "#onboarding/welcome")
	click(t, p, "onboarding-terms-checkbox")
	click(t, p, "onboarding-import-wallet")
	waitRoute(t, p, "#onboarding/metametrics")
	click(t, p, "metametrics-no-thanks")

	// Paste fills all 12 words from the clipboard.
	err := proto.BrowserGrantPermissions{Origin: "chrome-extension://" + w.id,
		Permissions: []proto.BrowserPermissionType{proto.BrowserPermissionTypeClipboardReadWrite,
			proto.BrowserPermissionTypeClipboardSanitizedWrite}}.Call(w.browser)
	if err != nil {
		t.Fatal(err)
	}
	el(t, p, "import-srp__srp-word-0")
	if _, err := p.Eval(`s => navigator.clipboard.writeText(s)`, srp); err != nil {
		t.Fatalf("write clipboard: %v", err)
	}
	click(t, p, "srp-input-import__paste-button")
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, err := el(t, p, "import-srp__srp-word-11").Property("value")
		if err == nil && v.String() == "cradle" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("paste did not fill word 12: %v %v", v, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	click(t, p, "import-srp-confirm")

	waitRoute(t, p, "#onboarding/create-password")
	const newPassword = "a brand new password"
	typeInto(t, p, "create-password-new", newPassword)
	typeInto(t, p, "create-password-confirm", newPassword)
	click(t, p, "create-password-terms")
	click(t, p, "create-password-import")
	click(t, p, "onboarding-complete-done")
	waitRoute(t, p, "#onboarding/pin-extension")
	click(t, p, "pin-extension-next")
	click(t, p, "pin-extension-done")

	var accounts []string
	if err := rpcCall(rpcURL, "eth_accounts", nil, &accounts); err != nil {
		t.Fatal(err)
	}
	el(t, p, "account-menu-icon")
	if got := appState(t, p).selected(); !strings.EqualFold(got, accounts[0]) {
		t.Errorf("account after onboarding = %s, want the node's first account %s", got, accounts[0])
	}
	waitText(t, p, "eth-overview__primary-currency", func(s string) bool { return s == "25 ETH" })

	// The stored vault opens with the new password.
	click(t, p, "global-menu-lock")
	typeInto(t, p, "unlock-password", newPassword)
	click(t, p, "unlock-submit")
	el(t, p, "account-menu-icon")
}
