package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client"
)

// forkView is what a test reads of a fork.
type forkView struct {
	SessionID      string `json:"sessionId"`
	FromCheckpoint struct {
		Name, SessionID, From string
		BlockNumber           uint64
	} `json:"fromCheckpoint"`
	Warnings []struct{ Code string }
}

// TestCheckpointForks: a session saved at A (dapp connected, hst deployed,
// 1 ETH sent) is forked twice by name from another host (`serve --http`,
// two clients) while the original runs on. Each fork has its own chain,
// loaded with A's state (balance, nonce, hst balance, block), its wallet
// unlocked on that chain, A's dapp tab back and connected, A's contract
// registry. The two forks then run different branches at the same time
// (one sends 1 ETH from the dapp through its wallet, the other transfers
// hst), and neither sees the other's transaction, nor does the original.
// Each fork's session.json names the checkpoint it came from.
func TestCheckpointForks(t *testing.T) {
	h, ws := walletHost(t)
	la := launch(t, h, map[string]any{"stateMode": "default"})
	urlA := chainURL(t, h)
	dapp := dappServer(t)
	hst := checkpointSetUp(t, h, dapp.URL)
	atA := readChain(t, urlA, hst)
	var blockA string
	ethRPC(t, urlA, "eth_blockNumber", &blockA)
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"}))

	p := startServe(t, ws)
	forks := map[string]*client.Handle{"b": p.connectAs(t, "fork-b"), "c": p.connectAs(t, "fork-c")}
	views := map[string]forkView{}
	urls := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := []error{}
	for name, c := range forks { // both forks launch at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v forkView
			env, err := c.CallEnvelope(context.Background(), "mm_launch", withFreePorts(t, map[string]any{"fromCheckpoint": "A"}))
			if err == nil {
				err = env.Decode(&v)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("fork %s: %w", name, err))
			}
			views[name] = v
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("forking A twice: %v\nserve stderr:\n%s", err, tail(p.Stderr.String(), 40))
	}
	for name, c := range forks {
		v := views[name]
		if v.SessionID == "" || v.SessionID == la["sessionId"] || v.FromCheckpoint.Name != "A" || v.FromCheckpoint.SessionID != la["sessionId"] {
			t.Fatalf("fork %s answered %+v (original %s)", name, v, la["sessionId"])
		}
		var st struct{ RPCURL string }
		call(t, c, "chain_status", nil, &st)
		urls[name] = st.RPCURL
		if got := readChain(t, st.RPCURL, hst); got != atA {
			t.Fatalf("fork %s's chain %+v, A's %+v", name, got, atA)
		}
		var block string
		ethRPC(t, st.RPCURL, "eth_blockNumber", &block)
		if block != blockA {
			t.Fatalf("fork %s at block %s, A at %s", name, block, blockA)
		}
		var w walletView
		call(t, c, "mm_get_state", nil, &w)
		if !w.State.IsUnlocked {
			t.Fatalf("fork %s: wallet %+v, want unlocked", name, w.State)
		}
		var ds struct {
			Contracts []struct{ ContractName, ContractAddress string }
		}
		call(t, c, "mm_list_contracts", nil, &ds)
		if len(ds.Contracts) != 1 || !strings.EqualFold(ds.Contracts[0].ContractAddress, hst) {
			t.Fatalf("fork %s's contracts %+v, want A's hst %s", name, ds.Contracts, hst)
		}
		// A's dapp tab is back, and connected: its request answers with
		// no popup.
		call(t, c, "mm_switch_to_tab", map[string]any{"role": "dapp"}, nil)
		call(t, c, "mm_click", map[string]any{"testId": "connect"}, nil)
		if !eventually(10*time.Second, func() bool { return handleText(t, c, "account") == account0 }) {
			t.Fatalf("fork %s: the dapp is not connected (account %q)", name, handleText(t, c, "account"))
		}
		b, err := os.ReadFile(filepath.Join(ws, "test-artifacts", "llm-knowledge", v.SessionID, "session.json"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Launch struct {
				FromCheckpoint *struct{ Name, SessionID string } `json:"fromCheckpoint"`
			} `json:"launch"`
		}
		if json.Unmarshal(b, &meta) != nil || meta.Launch.FromCheckpoint == nil || meta.Launch.FromCheckpoint.Name != "A" || meta.Launch.FromCheckpoint.SessionID != la["sessionId"] {
			t.Fatalf("fork %s's session.json does not name checkpoint A of %s: %s", name, la["sessionId"], b)
		}
	}
	if urls["b"] == urls["c"] || urls["b"] == urlA || urls["c"] == urlA {
		t.Fatalf("chains: a %s, b %s, c %s; want three of their own", urlA, urls["b"], urls["c"])
	}

	// The two branches at the same time: b sends 1 ETH from the dapp
	// through its wallet, c transfers hst.
	var sent string
	wg.Add(2)
	go func() {
		defer wg.Done()
		sent = handleSend(t, forks["b"])
	}()
	go func() {
		defer wg.Done()
		hstTransfer(t, urls["c"], hst)
	}()
	wg.Wait()
	if !strings.HasPrefix(sent, "0x") {
		t.Fatalf("fork b's send answered %q", sent)
	}
	b, c := readChain(t, urls["b"], hst), readChain(t, urls["c"], hst)
	if b.HST != atA.HST || b.Nonce == atA.Nonce || b.Balance == atA.Balance {
		t.Fatalf("fork b after its send: %+v (A %+v)", b, atA)
	}
	if c.HST == atA.HST || c.Nonce == atA.Nonce {
		t.Fatalf("fork c after its hst transfer: %+v (A %+v)", c, atA)
	}
	var tx json.RawMessage
	for name, url := range map[string]string{"c": urls["c"], "the original": urlA} {
		ethRPC(t, url, "eth_getTransactionByHash", &tx, sent)
		if string(tx) != "null" {
			t.Fatalf("%s sees fork b's transaction %s: %s", name, sent, tx)
		}
	}
	if got := readChain(t, urlA, hst); got != atA {
		t.Fatalf("the original's chain moved with its forks: %+v, A %+v", got, atA)
	}
	for _, c := range forks {
		call(t, c, "mm_cleanup", nil, nil)
	}
	must(t, h.Call("mm_checkpoint_restore", map[string]any{"name": "A"}))
	must(t, h.Call("mm_cleanup", map[string]any{}))

	// The records: the save, the restore and each fork are labelled with
	// the checkpoint's name.
	sid, _ := la["sessionId"].(string)
	for _, want := range []struct{ session, tool, label string }{
		{sid, "mm_checkpoint_save", "checkpoint:save:A"},
		{sid, "mm_checkpoint_restore", "checkpoint:restore:A"},
		{views["b"].SessionID, "mm_launch", "checkpoint:fork:A"},
		{views["c"].SessionID, "mm_launch", "checkpoint:fork:A"},
	} {
		if got := recordLabels(t, ws, want.session, want.tool); !slices.Contains(got, want.label) {
			t.Fatalf("%s's %s record is labelled %v, want %s", want.session, want.tool, got, want.label)
		}
	}
}

// recordLabels are the labels of session's last step record of tool.
func recordLabels(t testing.TB, ws, session, tool string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(ws, "test-artifacts", "llm-knowledge", session, "steps", "*-"+tool+".json"))
	if len(files) == 0 {
		t.Fatalf("no %s record in session %s", tool, session)
	}
	b, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Labels []string }
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Labels
}

// handleText is the text of the element with testid id on c's active
// page, "<missing>" when there is none.
func handleText(t testing.TB, c *client.Handle, id string) string {
	t.Helper()
	var out struct {
		Items []struct{ TestID, Text string }
	}
	call(t, c, "mm_list_testids", map[string]any{"limit": 500}, &out)
	for _, it := range out.Items {
		if it.TestID == id {
			return it.Text
		}
	}
	return "<missing>"
}

// handleSend clicks the dapp's Send 1 ETH in c's session, approves it in
// the wallet's popup and answers the dapp's answer (the transaction hash).
func handleSend(t testing.TB, c *client.Handle) string {
	call(t, c, "mm_click", map[string]any{"testId": "send"}, nil)
	call(t, c, "mm_wait_for_notification", map[string]any{"timeoutMs": 15000}, nil)
	call(t, c, "mm_click", map[string]any{"testId": "page-container-footer-next"}, nil)
	call(t, c, "mm_switch_to_tab", map[string]any{"role": "dapp"}, nil)
	var got string
	eventually(10*time.Second, func() bool {
		got = handleText(t, c, "tx")
		return got != "" && got != "<missing>"
	})
	return got
}
