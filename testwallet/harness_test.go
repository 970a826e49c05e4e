package testwallet_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/testwallet"
)

const (
	chromeBin   = "/usr/lib/chromium/chromium"
	anvilBin    = "../.tools/node_modules/.bin/anvil"
	password    = "correct horse battery staple"
	srp         = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	account0    = "0x5cfe73b6021e818b776b421b1c4db2474086a7e1"
	account1    = "0x09781764C08DE8CA82E156bbf156A3ca217C7950"
	fixtureAddr = "127.0.0.1:12345"
)

// wallet is a Chrome with the test wallet loaded.
type wallet struct {
	browser *rod.Browser
	id      string                        // extension id
	seen    map[proto.TargetTargetID]bool // pages waitPage already returned
}

// startWallet unpacks the extension and launches headless Chrome with it.
func startWallet(t *testing.T) *wallet {
	t.Helper()
	if _, err := os.Stat(chromeBin); err != nil {
		t.Fatalf("chromium not installed (make setup installs it): %v", err)
	}
	dir := t.TempDir()
	if err := testwallet.WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	l := launcher.New().Bin(chromeBin).Headless(false).Set("headless", "new").
		Set("window-size", "1280,800").Set("screen-info", "{0,0 1920x1080}").
		NoSandbox(true).Leakless(true).UserDataDir(t.TempDir()).
		Set("load-extension", dir).Set("disable-extensions-except", dir).
		Set("disable-component-update").Set("disable-sync").Set("no-first-run").
		Set("disable-background-networking")
	u, err := l.Launch()
	if err != nil {
		t.Fatalf("launch chrome: %v", err)
	}
	b := rod.New().ControlURL(u).NoDefaultDevice()
	if err := b.Connect(); err != nil {
		l.Kill()
		t.Fatalf("connect chrome: %v", err)
	}
	t.Cleanup(func() {
		_ = b.Close()
		l.Kill()
		l.Cleanup()
	})
	w := &wallet{browser: b, seen: map[proto.TargetTargetID]bool{}}
	deadline := time.Now().Add(15 * time.Second)
	for w.id == "" {
		res, err := proto.TargetGetTargets{}.Call(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range res.TargetInfos {
			if ti.Type == "service_worker" && strings.HasSuffix(ti.URL, "/scripts/app-init.js") {
				su, _ := url.Parse(ti.URL)
				w.id = su.Host
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no service worker for scripts/app-init.js: extension not loaded")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return w
}

// open opens an extension page such as "home.html".
func (w *wallet) open(t *testing.T, path string) *rod.Page {
	t.Helper()
	p, err := w.browser.Page(proto.TargetCreateTarget{URL: "chrome-extension://" + w.id + "/" + path})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitPage waits for a new page (not returned before) whose URL contains
// part (e.g. notification.html); a closing popup does not count twice.
func (w *wallet) waitPage(t *testing.T, part string) *rod.Page {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		pages, err := w.browser.Pages()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			if info, err := p.Info(); err == nil && strings.Contains(info.URL, part) && !w.seen[p.TargetID] {
				w.seen[p.TargetID] = true
				return p
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no page with %q in its URL", part)
	return nil
}

// waitGone waits until page p has closed (the wallet closes its popup).
func (w *wallet) waitGone(t *testing.T, p *rod.Page) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := (proto.TargetGetTargetInfo{TargetID: p.TargetID}).Call(w.browser); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the popup stayed open")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// popupURL is a page's current URL.
func popupURL(t *testing.T, p *rod.Page) string {
	t.Helper()
	info, err := p.Info()
	if err != nil {
		t.Fatal(err)
	}
	return info.URL
}

// requestID is the request id in a popup's route (#kind/<id>...).
func requestID(t *testing.T, p *rod.Page) string {
	t.Helper()
	u := popupURL(t, p)
	_, route, _ := strings.Cut(u, "#")
	parts := strings.Split(route, "/")
	if len(parts) < 2 {
		t.Fatalf("popup URL %s has no request route", u)
	}
	return parts[1]
}

// el waits (bounded) for a visible element by test id.
func el(t *testing.T, p *rod.Page, testid string) *rod.Element {
	t.Helper()
	// The wallet re-renders on every route: look the element up again on
	// each try, so a button replaced by the next screen is never waited on.
	sel := fmt.Sprintf(`[data-testid=%q]`, testid)
	deadline := time.Now().Add(10 * time.Second)
	for {
		e, err := p.Timeout(time.Second).Element(sel)
		if err == nil {
			e = e.CancelTimeout()
			if vis, verr := e.Visible(); verr == nil && vis {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("element %s not visible within 10 s (last error %v)", testid, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func click(t *testing.T, p *rod.Page, testid string) {
	t.Helper()
	if err := el(t, p, testid).Timeout(10*time.Second).Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatalf("click %s: %v", testid, err)
	}
}

// clickClosing clicks a button whose handler closes its popup. The mouse
// release can then fail (its page went before the reply): that is the
// wallet doing what it should, so the error counts only if the popup is
// still open 5 s later.
func (w *wallet) clickClosing(t *testing.T, p *rod.Page, testid string) {
	t.Helper()
	err := el(t, p, testid).Timeout(10*time.Second).Click(proto.InputMouseButtonLeft, 1)
	if err == nil {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, gone := (proto.TargetGetTargetInfo{TargetID: p.TargetID}).Call(w.browser); gone != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("click %s: %v (the popup is still open)", testid, err)
}

func typeInto(t *testing.T, p *rod.Page, testid, text string) {
	t.Helper()
	if err := el(t, p, testid).Timeout(10 * time.Second).Input(text); err != nil {
		t.Fatalf("type into %s: %v", testid, err)
	}
}

// waitText waits until the element's text satisfies ok and returns it.
func waitText(t *testing.T, p *rod.Page, testid string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, err := el(t, p, testid).Text()
		if err == nil && ok(text) {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s text %q (err %v) never matched", testid, text, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// walletState is what window.stateHooks.getCleanAppState() answers in the
// page's main world, as MetaMask's e2e tests and mmcp read it.
type walletState struct {
	IsUnlocked       bool `json:"isUnlocked"`
	InternalAccounts struct {
		SelectedAccount string                              `json:"selectedAccount"`
		Accounts        map[string]struct{ Address string } `json:"accounts"`
	} `json:"internalAccounts"`
	ProviderConfig struct {
		ChainID  string `json:"chainId"`
		Nickname string `json:"nickname"`
	} `json:"providerConfig"`
	Accounts         map[string]struct{ Balance string }      `json:"accounts"`
	PendingApprovals map[string]struct{ Type, Origin string } `json:"pendingApprovals"`
}

func appState(t *testing.T, p *rod.Page) walletState {
	t.Helper()
	res, err := p.Eval(`() => window.stateHooks.getCleanAppState().then((s) => s.metamask)`)
	if err != nil {
		t.Fatalf("getCleanAppState: %v", err)
	}
	var ws walletState
	if err := res.Value.Unmarshal(&ws); err != nil {
		t.Fatal(err)
	}
	return ws
}

// selected is the selected account's address.
func (w walletState) selected() string {
	return w.InternalAccounts.Accounts[w.InternalAccounts.SelectedAccount].Address
}

// waitRoute waits until the page URL ends with the given hash route.
func waitRoute(t *testing.T, p *rod.Page, hash string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := p.Info()
		if err == nil && strings.HasSuffix(info.URL, hash) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("route: want URL ending %q, have %v (%v)", hash, info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serveFixture serves fixture (nil: 404 for everything) on 127.0.0.1:12345,
// where the extension looks for it. Holding the port also keeps other
// fixture servers away during the test.
func serveFixture(t *testing.T, fixture any) {
	t.Helper()
	var body []byte
	if fixture != nil {
		var err error
		if body, err = json.Marshal(fixture); err != nil {
			t.Fatal(err)
		}
	}
	var ln net.Listener
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		if ln, err = net.Listen("tcp", fixtureAddr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("port 12345 stayed busy: a test before this one left a server running: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.URL.Path != "/state.json" || body == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// encryptVault writes a @metamask/browser-passworder vault.
func encryptVault(t *testing.T, pw string, iterations int, keyrings any) string {
	t.Helper()
	plain, err := json.Marshal(keyrings)
	if err != nil {
		t.Fatal(err)
	}
	salt, iv := make([]byte, 32), make([]byte, 16)
	_, _ = rand.Read(salt)
	_, _ = rand.Read(iv)
	key, err := pbkdf2.Key(sha256.New, pw, salt, iterations, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, len(iv))
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	v := map[string]any{
		"data": b64(gcm.Seal(nil, iv, plain, nil)), "iv": b64(iv), "salt": b64(salt),
		"keyMetadata": map[string]any{"algorithm": "PBKDF2", "params": map[string]any{"iterations": iterations}},
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// legacyFixture is MetaMask's meta.version 74 shape with one unlocked-able
// account on the given RPC URL. An empty vault gives the onboarding preset.
func legacyFixture(vault, rpcURL string) map[string]any {
	keyring := map[string]any{}
	if vault != "" {
		keyring["vault"] = vault
	}
	return map[string]any{
		"data": map[string]any{
			"KeyringController": keyring,
			"AccountsController": map[string]any{"internalAccounts": map[string]any{
				"selectedAccount": "acc-0",
				"accounts": map[string]any{"acc-0": map[string]any{
					"id": "acc-0", "address": account0, "type": "eip155:eoa", "metadata": map[string]any{"name": "Account 1"},
				}},
			}},
			"NetworkController": map[string]any{
				"selectedNetworkClientId": "networkConfigurationId",
				"providerConfig": map[string]any{
					"chainId": "0x539", "nickname": "Localhost 8545", "rpcUrl": rpcURL, "ticker": "ETH",
					"type": "rpc", "id": "networkConfigurationId",
				},
			},
			"OnboardingController":  map[string]any{"completedOnboarding": vault != "", "firstTimeFlowType": "import", "seedPhraseBackedUp": true},
			"PreferencesController": map[string]any{},
		},
		"meta": map[string]any{"version": 74},
	}
}

// hdKeyrings is the vault plaintext of a newer keyring (mnemonic as UTF-8 bytes).
func hdKeyrings() any {
	return []any{map[string]any{"type": "HD Key Tree", "data": map[string]any{
		"mnemonic": bytesOf(srp), "numberOfAccounts": 1, "hdPath": "m/44'/60'/0'/0",
	}}}
}

func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

// startAnvil runs Anvil on a free port with the default wallet's mnemonic and
// returns its RPC URL.
func startAnvil(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(anvilBin); err != nil {
		t.Fatalf("anvil not installed (make setup installs it): %v", err)
	}
	port := fmt.Sprint(testutil.FreePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, anvilBin, "--port", port, "--host", "127.0.0.1", "--chain-id", "1337",
		"--mnemonic", srp, "--balance", "25")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	rpcURL := "http://127.0.0.1:" + port
	deadline := time.Now().Add(10 * time.Second)
	for {
		var res string
		if err := rpcCall(rpcURL, "eth_blockNumber", nil, &res); err == nil {
			return rpcURL
		} else if time.Now().After(deadline) {
			t.Fatalf("anvil not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitReceipt waits for the receipt of the transaction hash and returns its
// status. Anvil answers eth_sendTransaction once the transaction is in its
// pool and mines it right after (automine), so for a moment after the hash
// comes back there is no receipt yet (eth_getTransactionReceipt is null).
func waitReceipt(t *testing.T, rpcURL, hash string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var receipt *struct{ Status string }
		err := rpcCall(rpcURL, "eth_getTransactionReceipt", []any{hash}, &receipt)
		if err == nil && receipt != nil {
			return receipt.Status
		}
		if time.Now().After(deadline) {
			t.Fatalf("no receipt for %s within 10s (last error %v)", hash, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func rpcCall(rpcURL, method string, params []any, out any) error {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	res, err := http.Post(rpcURL, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil {
		return err
	}
	if msg.Error != nil {
		return errors.New(msg.Error.Message)
	}
	return json.Unmarshal(msg.Result, out)
}
