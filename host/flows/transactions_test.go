package flows

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeChain answers the JSON-RPC calls expect.transactions makes: the
// block number, the account's pending transaction count, blocks with their
// transactions, and receipts (all succeeded).
type fakeChain struct {
	mu      sync.Mutex
	head    int
	pending int               // the account's pending transaction count
	blocks  map[int][]chainTx // by number
}

type chainTx struct {
	Hash  string `json:"hash"`
	From  string `json:"from"`
	To    string `json:"to"`
	Value string `json:"value"`
	Input string `json:"input"`
	Nonce string `json:"nonce"`
}

func (c *fakeChain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params []any           `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	var result any
	switch req.Method {
	case "eth_blockNumber":
		result = fmt.Sprintf("0x%x", c.head)
	case "eth_getTransactionCount":
		result = fmt.Sprintf("0x%x", c.pending)
	case "eth_getBlockByNumber":
		var n int
		fmt.Sscanf(req.Params[0].(string), "0x%x", &n)
		txs := c.blocks[n]
		if txs == nil {
			txs = []chainTx{}
		}
		result = map[string]any{"number": req.Params[0], "transactions": txs}
	case "eth_getTransactionReceipt":
		result = map[string]any{"status": "0x1", "logs": []any{}}
	default:
		result = nil
	}
	c.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// chainSession is a session whose chain is c and whose account is from.
type chainSession struct{ url, from string }

func (s chainSession) Call(_ context.Context, tool string, _ map[string]any) (json.RawMessage, error) {
	switch tool {
	case ToolChainStatus:
		return json.Marshal(map[string]any{"rpcUrl": s.url})
	case ToolGetState:
		return json.Marshal(map[string]any{"state": map[string]any{"accountAddress": s.from}})
	}
	return json.RawMessage(`{}`), nil
}

// TestTransactionsPendingAtTheStartAreNotTheFlows: a transaction the
// account sent before the flow's steps began, still pending then (Anvil
// answers a send before it mines it), is mined after the flow's first
// block, but expect.transactions does not count it as the flow's: it
// counts from the account's next nonce at the start.
func TestTransactionsPendingAtTheStartAreNotTheFlows(t *testing.T) {
	const from = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	chain := &fakeChain{head: 5, pending: 3, blocks: map[int][]chainTx{}}
	srv := httptest.NewServer(chain)
	defer srv.Close()
	s := chainSession{url: srv.URL, from: from}
	e := &Expect{Transactions: []TxSpec{{Kind: "transfer"}}}
	ctx := context.Background()
	start, err := e.firstTx(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if start != (txStart{block: 5, nonce: 3}) {
		t.Fatalf("the flow starts at %+v, want block 5, nonce 3", start)
	}
	transfer := func(hash string, nonce int) chainTx {
		return chainTx{Hash: hash, From: from, To: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", Value: "0xde0b6b3a7640000", Input: "0x", Nonce: fmt.Sprintf("0x%x", nonce)}
	}
	chain.mu.Lock()
	chain.blocks[6] = []chainTx{transfer("0xbefore", 2)} // sent before the flow, mined after its start
	chain.blocks[7] = []chainTx{transfer("0xflow", 3)}   // the flow's own
	chain.head = 7
	chain.mu.Unlock()
	v := &view{c: s, since: start}
	sent, err := v.sentTransactions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sent) != 1 || sent[0].Hash != "0xflow" {
		var hashes []string
		for _, tx := range sent {
			hashes = append(hashes, tx.Hash)
		}
		t.Fatalf("the flow's transactions: %s, want only 0xflow", strings.Join(hashes, ", "))
	}
	if err := v.checkTransactions(ctx, e.Transactions); err != nil {
		t.Fatalf("expect.transactions: %v", err)
	}
	// From a later step (Play from > 1) every transaction of the session
	// counts: the earlier steps sent them.
	all, err := (&view{c: s}).sentTransactions(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("all of the session's transactions: %d (%v), want 2", len(all), err)
	}
}
