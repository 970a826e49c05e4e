package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

const account1 = "0x09781764c08de8ca82e156bbf156a3ca217c7950"

// launchFree launches like launch, with Anvil and the fixture server on
// free ports where args gives none, so that no test meets another's
// leftover on a default port.
func launchFree(t testing.TB, h *Host, args map[string]any) map[string]any {
	t.Helper()
	env := h.Call("mm_launch", withFreePorts(t, args))
	if !env.OK {
		t.Fatalf("launch failed: %+v\nstderr tail:\n%s", env.Error, tail(h.Stderr.String(), 20))
	}
	var out map[string]any
	env.Decode(t, &out)
	return out
}

// withFreePorts returns args with ports.anvil and ports.fixtureServer set
// to free ports where args has none.
func withFreePorts(t testing.TB, args map[string]any) map[string]any {
	out := maps.Clone(args)
	if out == nil {
		out = map[string]any{}
	}
	ports := map[string]any{}
	if p, ok := args["ports"].(map[string]any); ok {
		maps.Copy(ports, p)
	}
	for _, k := range []string{"anvil", "fixtureServer"} {
		if _, ok := ports[k]; !ok {
			ports[k] = testutil.FreePort(t)
		}
	}
	out["ports"] = ports
	return out
}

// launchState decodes a launch result's state.
func launchState(t testing.TB, res map[string]any) state {
	t.Helper()
	var st state
	if err := json.Unmarshal([]byte(jsonOf(res["state"])), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// steps lists a launch result's prerequisites' step names.
func steps(res map[string]any) []string {
	var pre []struct{ Step string }
	_ = json.Unmarshal([]byte(jsonOf(res["prerequisites"])), &pre)
	var out []string
	for _, p := range pre {
		out = append(out, p.Step)
	}
	return out
}

// chainURL is the session chain's RPC URL, from the chain plugin's status.
func chainURL(t testing.TB, h *Host) string {
	t.Helper()
	var st struct {
		Running bool
		RPCURL  string `json:"rpcUrl"`
	}
	must(t, h.Call("chain_status", map[string]any{})).Decode(t, &st)
	if !st.Running || st.RPCURL == "" {
		t.Fatalf("chain status %+v", st)
	}
	return st.RPCURL
}

// receipt is a mined transaction's receipt: Anvil mines right after it
// answers a send, so for a moment there is none; receipt waits for it
// (10 s at most) and fails the test without one.
func receipt(t testing.TB, url, hash string) (r struct{ Status, From string }) {
	t.Helper()
	if !eventually(10*time.Second, func() bool {
		ethRPC(t, url, "eth_getTransactionReceipt", &r, hash)
		return r.Status != ""
	}) {
		t.Fatalf("no receipt for %s", hash)
	}
	return r
}

// ethRPC calls a JSON-RPC method on url and decodes its result into out.
func ethRPC(t testing.TB, url, method string, out any, params ...any) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if r.Error != nil {
		t.Fatalf("%s: %s", method, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		t.Fatalf("%s result %s: %v", method, r.Result, err)
	}
}

// weiOf reads an account's balance in wei.
func weiOf(t testing.TB, url, addr string) *big.Int {
	t.Helper()
	var hexWei string
	ethRPC(t, url, "eth_getBalance", &hexWei, addr, "latest")
	n, ok := new(big.Int).SetString(strings.TrimPrefix(hexWei, "0x"), 16)
	if !ok {
		t.Fatalf("balance %q", hexWei)
	}
	return n
}

// anvilOn lists the Anvil processes listening on port.
func anvilOn(port int) []int {
	return pidsMatching("anvil", "--port "+strconv.Itoa(port)+" ")
}

// portFree reports whether 127.0.0.1:port can be bound.
func portFree(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// nothingLeft fails the test when the session's Anvil (on anvilPort),
// fixture server (on fixturePort) or Chrome survived.
func nothingLeft(t *testing.T, ws string, anvilPort, fixturePort int) {
	t.Helper()
	if !eventually(10*time.Second, func() bool { return len(anvilOn(anvilPort)) == 0 }) {
		t.Errorf("Anvil left on port %d: %v", anvilPort, anvilOn(anvilPort))
	}
	if !eventually(10*time.Second, func() bool { return len(chromeFor(ws)) == 0 }) {
		t.Errorf("Chrome left: %v", chromeFor(ws))
	}
	if !eventually(10*time.Second, func() bool { return portFree(fixturePort) }) {
		t.Errorf("port %d still busy (fixture server left?)", fixturePort)
	}
}

// TestLaunchDefaultSession: a default launch lands on an unlocked home with
// account 0 and 25 ETH read from Anvil; a second launch is refused; the
// balance follows the chain; a dapp connects and sends a transaction that
// lands on Anvil.
func TestLaunchDefaultSession(t *testing.T) {
	h, ws := walletHost(t)
	var res map[string]any
	must(t, h.Call("mm_launch", map[string]any{"goal": "default launch", "flowTags": []string{"launch"}, "tags": []string{"e2e"}})).Decode(t, &res)
	st := launchState(t, res)
	if st.CurrentScreen != "home" || !st.IsUnlocked {
		t.Fatalf("launch state %+v", st)
	}
	if st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, "0x5CfE73b6021E818B776b421B1c4Db2474086a7e1") {
		t.Fatalf("account %v", st.AccountAddress)
	}
	if st.Balance == nil || *st.Balance != "25 ETH" {
		t.Fatalf("balance %v, want 25 ETH", st.Balance)
	}
	if got := strings.Join(steps(res), ","); got != "mocks,chain,fixture,browser,unlock" {
		t.Fatalf("prerequisites %s", got)
	}
	// The default launch runs Anvil on its default port, or, when another
	// process holds it (TestMain holds 8545 and 12345 as a dapp
	// developer's own Anvil and fixture server would), on a free port
	// the answer names.
	url := chainURL(t, h)
	anvilPort, _ := strconv.Atoi(url[strings.LastIndex(url, ":")+1:])
	if anvilPort != heldAnvilPort && !portWarned(res, "chain", heldAnvilPort, anvilPort) {
		t.Fatalf("Anvil runs on %d, not its default 8545, and the answer does not say so: warnings %v", anvilPort, res["warnings"])
	}
	if foreignFixture.held && !portWarned(res, "fixture", heldFixturePort, 0) {
		t.Fatalf("the fixture server's default port is held, and the answer does not say so: warnings %v", res["warnings"])
	}
	ours := anvilOn(anvilPort)
	if len(ours) != 1 {
		t.Fatalf("Anvil processes on port %d: %v", anvilPort, ours)
	}
	wantCode(t, h.Call("mm_launch", map[string]any{}), "MM_SESSION_ALREADY_RUNNING")

	t.Run("balance follows the chain", func(t *testing.T) {
		must(t, h.Call("chain_set_balance", map[string]any{"address": account0, "wei": "7500000000000000000"}))
		if st := getState(t, h); st.Balance == nil || *st.Balance != "7.5 ETH" {
			t.Fatalf("balance after chain_set_balance: %v", st.Balance)
		}
	})

	t.Run("dapp connects and sends a transaction", func(t *testing.T) {
		before := weiOf(t, url, account1)
		srv := dappServer(t)
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
		must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
		must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 10000}))
		must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"})) // Next
		must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"})) // Confirm
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		eventuallyText(t, h, "account", account0)
		must(t, h.Call("mm_click", map[string]any{"testId": "send"}))
		must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 10000}))
		must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
		must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
		var hash string
		if !eventually(15*time.Second, func() bool {
			hash = testIDText(t, h, "tx")
			return strings.HasPrefix(hash, "0x") && len(hash) == 66
		}) {
			t.Fatalf("no transaction hash on the dapp: %q", hash)
		}
		receipt := receipt(t, url, hash)
		if receipt.Status != "0x1" || !strings.EqualFold(receipt.From, account0) {
			t.Fatalf("receipt %+v", receipt)
		}
		after := weiOf(t, url, account1)
		oneEth := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
		if new(big.Int).Sub(after, before).Cmp(oneEth) != 0 {
			t.Fatalf("account 1 balance %s -> %s, want +1 ETH", before, after)
		}
	})

	must(t, h.Call("mm_cleanup", map[string]any{}))
	if !eventually(10*time.Second, func() bool { return !pidAlive(ours[0]) }) {
		t.Errorf("Anvil %d left after cleanup", ours[0])
	}
	if !eventually(10*time.Second, func() bool { return len(chromeFor(ws)) == 0 }) {
		t.Errorf("Chrome left: %v", chromeFor(ws))
	}
}

// portWarned reports whether a launch answer warns that step's service
// runs on port to (0: any) because another process holds its default
// port from.
func portWarned(res map[string]any, step string, from, to int) bool {
	ws, _ := res["warnings"].([]any)
	for _, w := range ws {
		m, _ := w.(map[string]any)
		msg, _ := m["message"].(string)
		if m["code"] == "default_port_taken" && m["step"] == step &&
			strings.Contains(msg, "port "+strconv.Itoa(from)) && (to == 0 || strings.Contains(msg, "port "+strconv.Itoa(to))) {
			return true
		}
	}
	return false
}

// pidAlive reports whether pid runs (and is not a zombie).
func pidAlive(pid int) bool {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// TestLaunchAnvilPort: ports.anvil moves the chain, and the wallet still
// reads its balance there.
func TestLaunchAnvilPort(t *testing.T) {
	h, ws := walletHost(t)
	port, fport := testutil.FreePort(t), testutil.FreePort(t)
	res := launchFree(t, h, map[string]any{"ports": map[string]any{"anvil": port, "fixtureServer": fport}})
	st := launchState(t, res)
	if st.CurrentScreen != "home" || st.Balance == nil || *st.Balance != "25 ETH" {
		t.Fatalf("launch state %+v (balance %v)", st, st.Balance)
	}
	if len(anvilOn(port)) != 1 {
		t.Fatalf("Anvil processes on %d: %v", port, anvilOn(port))
	}
	if got := chainURL(t, h); !strings.HasSuffix(got, ":"+strconv.Itoa(port)) {
		t.Fatalf("chain URL %s", got)
	}
	// The wallet itself talks to the moved chain: its home shows the balance.
	eventuallyText(t, h, "eth-overview__primary-currency", "25 ETH")
	must(t, h.Call("mm_cleanup", map[string]any{}))
	nothingLeft(t, ws, port, fport)
}

// TestLaunchOnboarding: the onboarding state lands on the welcome screen.
func TestLaunchOnboarding(t *testing.T) {
	h, _ := walletHost(t)
	res := launchFree(t, h, map[string]any{"stateMode": "onboarding", "ports": map[string]any{"anvil": testutil.FreePort(t)}})
	if st := launchState(t, res); st.CurrentScreen != "onboarding-welcome" || st.IsUnlocked {
		t.Fatalf("launch state %+v", st)
	}
	if got := strings.Join(steps(res), ","); strings.Contains(got, "unlock") {
		t.Fatalf("onboarding launch unlocked: %s", got)
	}
}

// defaultStateWith fetches the default state through the fixture plugin's
// own tool and selects addr in it.
func defaultStateWith(t *testing.T, h *Host, addr string) map[string]any {
	t.Helper()
	var fx map[string]any
	must(t, h.Call("fixture_default_state", map[string]any{})).Decode(t, &fx)
	data := fx["data"].(map[string]any)
	prefs := data["PreferencesController"].(map[string]any)
	prefs["selectedAddress"] = addr
	// Newer states select through AccountsController; keep them in step.
	if ac, ok := data["AccountsController"].(map[string]any); ok {
		if ia, ok := ac["internalAccounts"].(map[string]any); ok {
			if accts, ok := ia["accounts"].(map[string]any); ok {
				for id, a := range accts {
					if m, ok := a.(map[string]any); ok && strings.EqualFold(fmt.Sprint(m["address"]), addr) {
						ia["selectedAccount"] = id
					}
				}
			}
		}
	}
	return fx
}

// launchBehaving launches the default state of account0 with the test
// wallet's TestWalletSettings set to settings: the switches that make it
// behave as a real MetaMask build does (see testwallet).
func launchBehaving(t *testing.T, h *Host, settings map[string]any) map[string]any {
	t.Helper()
	fx := defaultStateWith(t, h, account0)
	fx["data"].(map[string]any)["TestWalletSettings"] = settings
	return launchFree(t, h, map[string]any{"stateMode": "custom", "fixture": fx})
}

// TestLaunchCustomFixture: stateMode custom serves the given fixture: a
// vault-less one lands on onboarding; one with the default vault and
// account 1 selected is unlocked with the default password, like the
// default state, and shows account 1; one whose vault the default password
// does not open answers ok, locked, with a wallet_locked warning that says
// how to unlock it; a built-in preset under stateMode custom unlocks too.
func TestLaunchCustomFixture(t *testing.T) {
	h, _ := walletHost(t)
	anvil := testutil.FreePort(t)

	t.Run("no vault", func(t *testing.T) {
		fixture := map[string]any{
			"PreferencesController": map[string]any{"selectedAddress": account1},
			"NetworkController": map[string]any{"providerConfig": map[string]any{
				"rpcUrl": "http://localhost:" + strconv.Itoa(anvil), "chainId": "0x539", "nickname": "Localhost", "ticker": "ETH"}},
		}
		res := launchFree(t, h, map[string]any{"stateMode": "custom", "fixture": fixture, "ports": map[string]any{"anvil": anvil}})
		if st := launchState(t, res); st.CurrentScreen != "onboarding-welcome" {
			t.Fatalf("launch state %+v", st)
		}
		if res["warnings"] != nil {
			t.Fatalf("warnings for a vault-less state: %v", res["warnings"])
		}
		must(t, h.Call("mm_cleanup", map[string]any{}))
	})

	t.Run("account 1 selected", func(t *testing.T) {
		fx := defaultStateWith(t, h, account1)
		res := launchFree(t, h, map[string]any{"stateMode": "custom", "fixture": fx, "ports": map[string]any{"anvil": anvil}})
		st := launchState(t, res)
		if st.CurrentScreen != "home" || !st.IsUnlocked || st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, account1) {
			t.Fatalf("launch state %+v (account %v)", st, st.AccountAddress)
		}
		if !slices.Contains(steps(res), "unlock") || res["warnings"] != nil {
			t.Fatalf("steps %v, warnings %v", steps(res), res["warnings"])
		}
		must(t, h.Call("mm_cleanup", map[string]any{}))
	})

	t.Run("vault of another password", func(t *testing.T) {
		fx := defaultStateWith(t, h, account1)
		kc := fx["data"].(map[string]any)["KeyringController"].(map[string]any)
		var vault map[string]any
		if err := json.Unmarshal([]byte(kc["vault"].(string)), &vault); err != nil {
			t.Fatal(err)
		}
		vault["salt"] = "c29tZSBvdGhlciBzYWx0IQ==" // the key derived from the default password no longer opens it
		kc["vault"] = jsonOf(vault)
		res := launchFree(t, h, map[string]any{"stateMode": "custom", "fixture": fx, "ports": map[string]any{"anvil": anvil}})
		if st := launchState(t, res); st.CurrentScreen != "unlock" || st.IsUnlocked {
			t.Fatalf("launch state %+v", st)
		}
		var warns []struct{ Code, Step, Message string }
		if err := json.Unmarshal([]byte(jsonOf(res["warnings"])), &warns); err != nil || len(warns) != 1 {
			t.Fatalf("warnings %v (%v)", res["warnings"], err)
		}
		if w := warns[0]; w.Code != "wallet_locked" || w.Step != "unlock" || !strings.Contains(w.Message, "did not open with the fixture plugin's password") ||
			!strings.Contains(w.Message, "mm_type") {
			t.Fatalf("warning %+v", w)
		}
		must(t, h.Call("mm_cleanup", map[string]any{}))
	})

	t.Run("preset under custom", func(t *testing.T) {
		res := launchFree(t, h, map[string]any{"stateMode": "custom", "fixturePreset": "withMultipleAccounts", "ports": map[string]any{"anvil": anvil}})
		if st := launchState(t, res); st.CurrentScreen != "home" || !st.IsUnlocked {
			t.Fatalf("launch state %+v, warnings %v", st, res["warnings"])
		}
		must(t, h.Call("mm_cleanup", map[string]any{}))
	})
}

// TestLaunchPresetFile: a preset file dropped into <ws>/.mmcp/presets is
// used by name; an unknown preset lists the presets.
func TestLaunchPresetFile(t *testing.T) {
	h, ws := walletHost(t)
	fx := defaultStateWith(t, h, account1)
	dir := filepath.Join(ws, ".mmcp", "presets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "teamAccount1.json"), []byte(jsonOf(fx)), 0o644); err != nil {
		t.Fatal(err)
	}
	anvil := testutil.FreePort(t)

	env := h.Call("mm_launch", map[string]any{"fixturePreset": "noSuchPreset", "ports": map[string]any{"anvil": anvil}})
	wantCode(t, env, "MM_INVALID_CONFIG")
	if av := jsonOf(env.Error.Details["available"]); !strings.Contains(av, "teamAccount1") || !strings.Contains(av, "withNFTs") {
		t.Fatalf("available presets %s", av)
	}
	if !eventually(10*time.Second, func() bool { return len(anvilOn(anvil)) == 0 }) {
		t.Fatalf("Anvil left after the refused preset")
	}

	res := launchFree(t, h, map[string]any{"fixturePreset": "teamAccount1", "ports": map[string]any{"anvil": anvil}})
	st := launchState(t, res)
	if st.CurrentScreen != "home" || !st.IsUnlocked || st.AccountAddress == nil || !strings.EqualFold(*st.AccountAddress, account1) {
		t.Fatalf("launch state %+v (account %v)", st, st.AccountAddress)
	}
	if st.Balance == nil || *st.Balance != "25 ETH" {
		t.Fatalf("balance %v", st.Balance)
	}
}

// TestLaunchPortInUse: a fixture port the launch names that another process
// holds answers MM_PORT_IN_USE naming the port, and the chain started
// before it is gone, as is Chrome (which starts beside the chain) by the
// time the answer comes.
func TestLaunchPortInUse(t *testing.T) {
	h, ws := walletHost(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	anvil := testutil.FreePort(t)
	env := h.Call("mm_launch", map[string]any{"ports": map[string]any{"anvil": anvil, "fixtureServer": busy}})
	wantCode(t, env, "MM_PORT_IN_USE")
	if !strings.Contains(env.Error.Message, strconv.Itoa(busy)) {
		t.Errorf("message does not name the port %d: %s", busy, env.Error.Message)
	}
	if !eventually(10*time.Second, func() bool { return len(anvilOn(anvil)) == 0 }) {
		t.Errorf("Anvil left on port %d: %v", anvil, anvilOn(anvil))
	}
	if len(chromeFor(ws)) != 0 {
		t.Errorf("Chrome still running after the answer: %v", chromeFor(ws))
	}
	wantCode(t, h.Call("mm_get_state", map[string]any{}), "MM_NO_ACTIVE_SESSION")
}

// TestLaunchFailsHalfway: a launch failing after the chain (unknown seed
// contract) or after the chain and the fixture server (Chrome cannot start)
// leaves nothing behind, and the next launch works.
func TestLaunchFailsHalfway(t *testing.T) {
	t.Run("unknown seed contract", func(t *testing.T) {
		h, ws := walletHost(t)
		anvil, fport := testutil.FreePort(t), testutil.FreePort(t)
		ports := map[string]any{"anvil": anvil, "fixtureServer": fport}
		env := h.Call("mm_launch", map[string]any{"seedContracts": []string{"hst", "noSuchContract"}, "ports": ports})
		wantCode(t, env, "MM_LAUNCH_FAILED")
		if !strings.Contains(env.Error.Message, "noSuchContract") || env.Error.Details["step"] != "contracts" {
			t.Fatalf("error %+v", env.Error)
		}
		nothingLeft(t, ws, anvil, fport)
		// The host is clean: the next launch works.
		res := launchFree(t, h, map[string]any{"ports": ports})
		if st := launchState(t, res); st.CurrentScreen != "home" {
			t.Fatalf("relaunch state %+v", st)
		}
		must(t, h.Call("mm_cleanup", map[string]any{}))
		nothingLeft(t, ws, anvil, fport)
	})

	t.Run("Chrome fails after the fixture server", func(t *testing.T) {
		h, ws := walletHost(t, "--chrome", "/bin/false")
		anvil, fport := testutil.FreePort(t), testutil.FreePort(t)
		env := h.Call("mm_launch", map[string]any{"ports": map[string]any{"anvil": anvil, "fixtureServer": fport}})
		wantCode(t, env, "MM_LAUNCH_FAILED")
		if env.Error.Details["step"] != "browser" {
			t.Fatalf("error %+v", env.Error)
		}
		nothingLeft(t, ws, anvil, fport)
	})
}

// stepLine matches the host's per-step launch log lines.
var stepLine = regexp.MustCompile(`launch: step=([\w-]+) ms=(\d+)`)

// BenchmarkFullLaunch: a full default mm_launch (chain, fixture, Chrome,
// extension ready, unlocked home) and its cleanup, on one running host. It
// reports the medians of the launch, of each of its steps (from the host's
// "launch: step=... ms=..." log lines) and of the cleanup, and the time of
// the host's first launch. Target: launch median <= 2000 ms. Run with -benchtime=10x for the median of 10.
func BenchmarkFullLaunch(b *testing.B) {
	h, _ := walletHost(b, "--log-level", "debug")
	var total, cleanup []time.Duration
	split := map[string][]time.Duration{}
	for i := 0; i < b.N; i++ {
		mark := len(h.Stderr.String())
		start := time.Now()
		env := h.Call("mm_launch", map[string]any{})
		if !env.OK {
			b.Fatalf("launch: %+v", env.Error)
		}
		total = append(total, time.Since(start))
		for _, m := range stepLine.FindAllStringSubmatch(h.Stderr.String()[mark:], -1) {
			ms, _ := strconv.Atoi(m[2])
			split[m[1]] = append(split[m[1]], time.Duration(ms)*time.Millisecond)
		}
		start = time.Now()
		must(b, h.Call("mm_cleanup", map[string]any{}))
		cleanup = append(cleanup, time.Since(start))
	}
	b.ReportMetric(median(total), "launch-median-ms")
	// the host's first launch: Chrome and the wallet start cold
	b.ReportMetric(float64(total[0])/float64(time.Millisecond), "first-launch-ms")
	b.ReportMetric(median(cleanup), "cleanup-median-ms")
	for name, ds := range split {
		b.ReportMetric(median(ds), name+"-ms")
	}
}
