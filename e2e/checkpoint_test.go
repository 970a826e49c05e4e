package e2e

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The fixture's password and recovery phrase (plugins/fixture), which a
// checkpoint must never hold in clear.
const (
	fixturePassword = "correct horse battery staple"
	fixtureSRP      = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
)

// checkpointSetUp is the set-up a checkpoint saves: the dapp connected,
// hst deployed, 1 ETH sent from the dapp. It answers hst's address.
func checkpointSetUp(t testing.TB, h *Host, dappURL string) string {
	t.Helper()
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": dappURL}))
	connectDapp(t, h)
	var hst struct{ ContractAddress string }
	must(t, h.Call("mm_seed_contract", map[string]any{"contractName": "hst"})).Decode(t, &hst)
	sendFromDapp(t, h, true)
	return hst.ContractAddress
}

// connectDapp connects the dapp of the active tab (dappServer's page) to
// the wallet: its connect button, then the wallet's popup approved.
func connectDapp(t testing.TB, h *Host) {
	t.Helper()
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 15000}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "page-container-footer-next"}))
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	eventuallyText(t, h, "account", account0)
}

// sendFromDapp clicks the dapp's Send 1 ETH and approves or rejects it in
// the wallet's popup, then waits for the dapp's answer.
func sendFromDapp(t testing.TB, h *Host, approve bool) {
	t.Helper()
	before := testIDText(t, h, "tx")
	must(t, h.Call("mm_click", map[string]any{"testId": "send"}))
	must(t, h.Call("mm_wait_for_notification", map[string]any{"timeoutMs": 15000}))
	id := "page-container-footer-cancel"
	if approve {
		id = "page-container-footer-next"
	}
	must(t, h.Call("mm_click", map[string]any{"testId": id}))
	must(t, h.Call("mm_switch_to_tab", map[string]any{"role": "dapp"}))
	if !eventually(10*time.Second, func() bool {
		got := testIDText(t, h, "tx")
		return got != before && got != "" && got != "<missing>"
	}) {
		t.Fatalf("the dapp got no answer to its send (tx %q)", testIDText(t, h, "tx"))
	}
}

// chainView is what a checkpoint must bring back of the chain.
type chainView struct{ Balance, Nonce, HST string }

func readChain(t testing.TB, url, hst string) chainView {
	t.Helper()
	var v chainView
	ethRPC(t, url, "eth_getBalance", &v.Balance, account0, "latest")
	ethRPC(t, url, "eth_getTransactionCount", &v.Nonce, account0, "latest")
	data := "0x70a08231" + strings.Repeat("0", 24) + strings.TrimPrefix(account0, "0x")
	ethRPC(t, url, "eth_call", &v.HST, map[string]any{"to": hst, "data": data}, "latest")
	return v
}

// hstTransfer sends 7 hst from account0 to another account (Anvil's
// unlocked account sends it) and waits until it is mined.
func hstTransfer(t testing.TB, url, hst string) {
	t.Helper()
	to := strings.Repeat("0", 24) + "09781764c08de8ca82e156bbf156a3ca217c7950"
	amount := fmt.Sprintf("%064x", big.NewInt(7))
	var hash string
	ethRPC(t, url, "eth_sendTransaction", &hash, map[string]any{"from": account0, "to": hst, "data": "0xa9059cbb" + to + amount})
	receipt(t, url, hash)
}

type restoreAnswer struct {
	SessionID string
	Chain     string
	Tabs      []string
	ActiveURL string
	Screen    string
	Unlocked  bool
	Ms        map[string]int64
	RestoreMs int64
	// ReloadSplitMs is the reload's own split.
	ReloadSplitMs map[string]int64
}

// TestCheckpointRestore: a session saved at A (dapp connected, hst
// deployed, 1 ETH sent) goes on (another send approved, one rejected, an
// hst transfer), then is restored to A in place, twice: balance, nonce,
// hst balance and the dapp's connection are as at A, the dapp tab is back
// and active, the session id is the same. The checkpoint's files are
// private and hold neither the password nor the recovery phrase.
func TestCheckpointRestore(t *testing.T) {
	h, ws := walletHost(t)
	l := launch(t, h, map[string]any{"stateMode": "default"})
	url := chainURL(t, h)
	dapp := dappServer(t)
	hst := checkpointSetUp(t, h, dapp.URL)
	atA := readChain(t, url, hst)

	var saved struct {
		Name, SessionID, Path string
		Contracts, Tabs       int
	}
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"})).Decode(t, &saved)
	if saved.SessionID != l["sessionId"] || saved.Contracts != 1 || saved.Tabs < 2 {
		t.Fatalf("save answered %+v", saved)
	}
	if !strings.HasPrefix(saved.Path, filepath.Join(ws, "test-artifacts")) {
		t.Fatalf("checkpoint kept at %s, not under the session's artifacts", saved.Path)
	}
	checkPrivate(t, saved.Path)

	sendFromDapp(t, h, true)
	sendFromDapp(t, h, false)
	hstTransfer(t, url, hst)
	if after := readChain(t, url, hst); after == atA || after.HST == atA.HST {
		t.Fatalf("the branch changed nothing: %+v", after)
	}
	must(t, h.Call("mm_close_tab", map[string]any{"role": "dapp"}))

	for i := 0; i < 2; i++ {
		var r restoreAnswer
		must(t, h.Call("mm_checkpoint_restore", map[string]any{"name": "A"})).Decode(t, &r)
		t.Logf("restore %d: %+v", i+1, r)
		if r.SessionID != l["sessionId"] {
			t.Fatalf("restore answered session %s, launched %s", r.SessionID, l["sessionId"])
		}
		if got := readChain(t, url, hst); got != atA {
			t.Fatalf("restore %d: chain %+v, at A %+v", i+1, got, atA)
		}
		if !strings.HasPrefix(r.ActiveURL, dapp.URL) {
			t.Fatalf("restore %d: active tab %q, want the dapp %s (tabs %v)", i+1, r.ActiveURL, dapp.URL, r.Tabs)
		}
		if !r.Unlocked {
			t.Fatalf("restore %d: the wallet is locked", i+1)
		}
		// The same build: only the background restarts, and the wallet
		// comes back unlocked without its unlock screen (its key kept in
		// the session storage), as a restart of its worker allows.
		if _, typed := r.ReloadSplitMs["unlock"]; typed {
			t.Fatalf("restore %d: the password was typed again (reload split %v): the restore reloaded the whole extension", i+1, r.ReloadSplitMs)
		}
		var ds struct {
			Contracts []struct{ ContractName, ContractAddress string }
		}
		must(t, h.Call("mm_list_contracts", map[string]any{})).Decode(t, &ds)
		if len(ds.Contracts) != 1 || !strings.EqualFold(ds.Contracts[0].ContractAddress, hst) {
			t.Fatalf("restore %d: contracts %+v", i+1, ds.Contracts)
		}
		// Connected as at A: the dapp's request answers with no popup.
		if got := testIDText(t, h, "account"); got == account0 {
			t.Fatalf("restore %d: the dapp tab was not reloaded (it shows the account already)", i+1)
		}
		must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
		eventuallyText(t, h, "account", account0)
		// And the branch goes on from A.
		sendFromDapp(t, h, true)
	}
	wantCode(t, h.Call("mm_checkpoint_restore", map[string]any{"name": "nope"}), "MM_CHECKPOINT_NOT_FOUND")
	must(t, h.Call("mm_cleanup", map[string]any{}))
}

// checkPrivate checks a checkpoint's folder: 0700, its files 0600, and no
// secret in clear.
func checkPrivate(t testing.TB, dir string) {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s is %v, want 0700", dir, fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s is %v, want 0600", p, fi.Mode().Perm())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{fixturePassword, fixtureSRP} {
			if strings.Contains(string(b), secret) {
				t.Fatalf("%s holds a secret in clear", p)
			}
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "chain-state.json,checkpoint.json" {
		t.Fatalf("checkpoint files %v", names)
	}
}
