package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/testwallet"
)

// walletWorkspace is a workspace whose dist/chrome is the test wallet.
func walletWorkspace(t testing.TB) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"wallet-ws","private":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := testwallet.WriteTo(filepath.Join(ws, "dist", "chrome")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// walletHost starts a headless host on a test wallet workspace.
func walletHost(t testing.TB, extra ...string) (*Host, string) {
	t.Helper()
	ws := walletWorkspace(t)
	h := startHost(t, HostOptions{Repo: ws, Args: append([]string{"--headless"}, extra...)})
	t.Cleanup(func() {
		// A test that fails mid-flow still leaves nothing running.
		req := map[string]any{}
		_ = req
		if h.Cmd.ProcessState == nil {
			h.Call("mm_cleanup", map[string]any{})
		}
	})
	return h, ws
}

// launch launches a session and returns its result.
func launch(t testing.TB, h *Host, args map[string]any) map[string]any {
	t.Helper()
	return launchFree(t, h, args)
}

// chromeFor lists the Chrome processes of a workspace's extension.
func chromeFor(ws string) []int {
	return pidsMatching("--load-extension=" + filepath.Join(ws, "dist", "chrome"))
}

// dappServer serves a page with a counter, a same-name button pair, and a
// connect button that asks the wallet for accounts.
func dappServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>dapp</title></head><body>
<h1>Test dapp</h1>
<button data-testid="counter" onclick="this.dataset.n = (+this.dataset.n || 0) + 1; document.getElementById('count').textContent = this.dataset.n">Count</button>
<span id="count" data-testid="count">0</span>
<button data-testid="connect" onclick="window.ethereum.request({method:'eth_requestAccounts'}).then(a => { document.getElementById('acct').textContent = a[0] }, e => { document.getElementById('acct').textContent = 'rejected ' + e.code })">Connect</button>
<span id="acct" data-testid="account"></span>
<button data-testid="send" onclick="window.ethereum.request({method:'eth_sendTransaction',params:[{from: document.getElementById('acct').textContent, to:'0x09781764C08DE8CA82E156bbf156A3ca217C7950', value:'0xde0b6b3a7640000'}]}).then(h => { document.getElementById('tx').textContent = h }, e => { document.getElementById('tx').textContent = 'rejected ' + e.code })">Send 1 ETH</button>
<span id="tx" data-testid="tx"></span>
<button data-testid="later" onclick="setTimeout(() => { const b = document.createElement('button'); b.dataset.testid = 'late'; b.textContent = 'Late'; document.body.appendChild(b) }, 400)">Later</button>
<button data-testid="remove-me" onclick="this.remove()">Remove me</button>
<button data-testid="open-popup" onclick="window.open('/popup', 'p', 'width=400,height=300')">Open popup</button>
<button data-testid="sign" onclick="window.ethereum.request({method:'personal_sign',params:['0x68656c6c6f', document.getElementById('acct').textContent]}).then(s => { document.getElementById('sig').textContent = s }, e => { document.getElementById('sig').textContent = 'rejected ' + e.code })">Sign</button>
<span id="sig" data-testid="signature"></span>
<span id="eip6963" data-testid="eip6963"></span>
<script>
window.addEventListener('eip6963:announceProvider', (e) => {
  const i = e.detail.info;
  document.getElementById('eip6963').textContent = [i.name, i.rdns, i.uuid ? 'uuid' : '', i.icon && i.icon.startsWith('data:image/') ? 'icon' : '', typeof e.detail.provider.request === 'function' ? '' : 'no-provider'].filter(Boolean).join(' ');
});
window.dispatchEvent(new Event('eip6963:requestProvider'));
</script>
</body></html>`)
	})
	mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><body><h1>Popup</h1><button data-testid="close-me" onclick="window.close()">Close</button></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// text fetches an element's text through mm_list_testids.
func testIDText(t testing.TB, h *Host, id string) string {
	t.Helper()
	var out struct {
		Items []struct{ TestID, Text string }
	}
	must(t, h.Call("mm_list_testids", map[string]any{"limit": 500})).Decode(t, &out)
	for _, it := range out.Items {
		if it.TestID == id {
			return it.Text
		}
	}
	return "<missing>"
}

func eventuallyText(t testing.TB, h *Host, id, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		if got = testIDText(t, h, id); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("testid %s text %q, want %q", id, got, want)
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func renameFile(a, b string) error { return os.Rename(a, b) }
