package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testDappIDs are the @metamask/test-dapp elements the tests read and click.
var testDappIDs = []string{
	"connectButton", "accounts", "chainId",
	"personalSign", "personalSignResult", "personalSignVerify", "personalSignVerifySigUtilResult", "personalSignVerifyECRecoverResult",
	"signTypedDataV4", "signTypedDataV4Result", "signTypedDataV4Verify", "signTypedDataV4VerifyResult",
	"sendButton", "addEthereumChain", "switchEthereumChain",
}

// testDappServer serves @metamask/test-dapp from the installed package. The
// page is the test dapp's own; the server only appends a script that gives
// the elements above a data-testid equal to their id, so mmcp's testid
// tools can read their text.
func testDappServer(t testing.TB) *httptest.Server {
	t.Helper()
	nm := os.Getenv("MMCP_NODE_MODULES")
	if nm == "" {
		nm = filepath.Join(repoRoot(), ".tools", "node_modules")
	}
	dist := filepath.Join(nm, "@metamask", "test-dapp", "dist")
	index, err := os.ReadFile(filepath.Join(dist, "index.html"))
	if err != nil {
		t.Fatalf("@metamask/test-dapp is not installed (make setup): %v", err)
	}
	tag := `<script>(() => {
  const ids = ` + jsonOf(testDappIDs) + `;
  const mark = () => ids.forEach((id) => { const el = document.getElementById(id); if (el && !el.dataset.testid) el.dataset.testid = id; });
  new MutationObserver(mark).observe(document.documentElement, { childList: true, subtree: true });
  mark();
})();</script>`
	page := strings.Replace(string(index), "</body>", tag+"</body>", 1)
	files := http.FileServer(http.Dir(dist))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(page))
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// secondAnvil starts Anvil on port 8546 with chain id 1338 (0x53a), the
// network the test dapp's "Add Localhost 8546" button adds.
func secondAnvil(t *testing.T) {
	t.Helper()
	bin := os.Getenv("ANVIL_PATH")
	if bin == "" {
		bin = filepath.Join(repoRoot(), ".tools", "node_modules", ".bin", "anvil")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--port", "8546", "--chain-id", "1338", "--silent")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start anvil: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	if !eventually(20*time.Second, func() bool {
		resp, err := http.Post("http://127.0.0.1:8546", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}) {
		t.Fatal("the second Anvil did not answer on 8546")
	}
}

// approveInPopup waits for the wallet's popup, checks that it shows okID
// with the given text right away, clicks it and reports whether the wallet
// closed the popup.
func approveInPopup(t *testing.T, h *Host, okID, okText string) bool {
	t.Helper()
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 15000}))
	if got := testIDText(t, h, okID); got != okText {
		t.Fatalf("popup button %s reads %q, want %q", okID, got, okText)
	}
	var c struct{ PageClosedAfterClick bool }
	must(t, h.Call("mm_click", map[string]any{"testId": okID})).Decode(t, &c)
	return c.PageClosedAfterClick
}

// TestTestDappFlows drives @metamask/test-dapp against the test wallet with
// mmcp's tools: connect, personal_sign and typed data v4 signed by the
// node's account and verified by the dapp, a transaction, adding a network
// (and declining to switch to it) and switching to it.
func TestTestDappFlows(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	url := chainURL(t, h)
	secondAnvil(t)
	srv := testDappServer(t)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
	// What the click saw is logged: a popup that never comes is then
	// told apart from a click that missed (missedPresses) or changed
	// nothing.
	t.Logf("connect click: %s", must(t, h.Call("mm_click", map[string]any{"testId": "connectButton", "timeoutMs": 30000})).Result)
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 15000}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	if !approveInPopup(t, h, "page-container-footer-next", "Confirm") {
		t.Fatal("connect: the popup did not close")
	}
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	eventuallyText(t, h, "accounts", account0)
	eventuallyText(t, h, "chainId", "0x539")

	t.Run("personal_sign verifies", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "personalSign"}))
		if !approveInPopup(t, h, "page-container-footer-next", "Sign") {
			t.Fatal("the signature popup did not close")
		}
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		var sig string
		if !eventually(10*time.Second, func() bool { sig = testIDText(t, h, "personalSignResult"); return strings.HasPrefix(sig, "0x") }) {
			t.Fatalf("personal_sign result %q", sig)
		}
		must(t, h.Call("mm_click", map[string]any{"testId": "personalSignVerify"}))
		eventuallyText(t, h, "personalSignVerifySigUtilResult", account0)
		eventuallyText(t, h, "personalSignVerifyECRecoverResult", account0)
	})

	t.Run("typed data v4 verifies", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "signTypedDataV4"}))
		if !approveInPopup(t, h, "page-container-footer-next", "Sign") {
			t.Fatal("the signature popup did not close")
		}
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		var sig string
		if !eventually(10*time.Second, func() bool { sig = testIDText(t, h, "signTypedDataV4Result"); return strings.HasPrefix(sig, "0x") }) {
			t.Fatalf("signTypedData_v4 result %q", sig)
		}
		must(t, h.Call("mm_click", map[string]any{"testId": "signTypedDataV4Verify"}))
		eventuallyText(t, h, "signTypedDataV4VerifyResult", account0)
	})

	t.Run("send", func(t *testing.T) {
		var before, after string
		ethRPC(t, url, "eth_getTransactionCount", &before, account0, "latest")
		must(t, h.Call("mm_click", map[string]any{"testId": "sendButton"}))
		if !approveInPopup(t, h, "page-container-footer-next", "Confirm") {
			t.Fatal("the transaction popup did not close")
		}
		if !eventually(10*time.Second, func() bool {
			ethRPC(t, url, "eth_getTransactionCount", &after, account0, "latest")
			return after != before
		}) {
			t.Fatalf("nonce of %s stayed %s: nothing was sent", account0, before)
		}
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	})

	t.Run("add a network, decline the switch, then switch", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "addEthereumChain"}))
		if approveInPopup(t, h, "confirmation-submit-button", "Approve") {
			t.Fatal("the popup closed before asking to switch")
		}
		// MetaMask asks to switch to the added network next.
		must(t, h.Call("mm_wait_for", map[string]any{"selector": "[data-testid=confirmation-submit-button]:not([disabled])"}))
		if got := testIDText(t, h, "confirmation-submit-button"); got != "Switch network" {
			t.Fatalf("second step %q", got)
		}
		var c struct{ PageClosedAfterClick bool }
		must(t, h.Call("mm_click", map[string]any{"testId": "confirmation-cancel-button"})).Decode(t, &c)
		if !c.PageClosedAfterClick {
			t.Fatal("declining the switch did not close the popup")
		}
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		eventuallyText(t, h, "chainId", "0x539")

		must(t, h.Call("mm_click", map[string]any{"testId": "switchEthereumChain"}))
		if !approveInPopup(t, h, "confirmation-submit-button", "Switch network") {
			t.Fatal("the switch popup did not close")
		}
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		eventuallyText(t, h, "chainId", "0x53a")
	})
	must(t, h.Call("mm_cleanup", map[string]any{}))
}

// TestSignatureRejectionAndEIP6963: rejecting a signature in the popup gives
// the dapp error 4001, and a page listening for EIP-6963 receives the
// wallet's announcement.
func TestSignatureRejectionAndEIP6963(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	srv := dappServer(t)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
	eventuallyText(t, h, "eip6963", "MetaMask io.metamask uuid icon")
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 10000}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	eventuallyText(t, h, "account", account0)

	must(t, h.Call("mm_click", map[string]any{"testId": "sign"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 10000}))
	var c struct{ PageClosedAfterClick bool }
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-cancel"})).Decode(t, &c)
	if !c.PageClosedAfterClick {
		t.Fatal("rejecting did not close the popup")
	}
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	eventuallyText(t, h, "signature", "rejected 4001")
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
