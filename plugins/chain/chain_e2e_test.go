package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// account0 is account 0 of MetaMask's test SRP.
var account0 = common.HexToAddress("0x5CfE73b6021E818B776b421B1c4Db2474086a7e1")

func TestStartServesMetaMaskChainAndStopKillsAnvil(t *testing.T) {
	t.Parallel()
	p, logs := newPlugin(t, nil)
	ctx := context.Background()
	st := startFresh(t, p, sdk.ChainOptions{})
	port := st.Port
	want := fmt.Sprintf("http://127.0.0.1:%d", port)
	if !st.Running || st.RPCURL != want || st.ChainID != 1337 || st.Port != port || st.External {
		t.Fatalf("status = %+v", st)
	}

	c, err := rpc.Dial(want)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var accounts []common.Address
	if err := c.Call(&accounts, "eth_accounts"); err != nil {
		t.Fatal(err)
	}
	if len(accounts) == 0 || accounts[0] != account0 {
		t.Fatalf("account 0 = %v, want %s (MetaMask's test SRP)", accounts, account0.Hex())
	}
	bal, err := ethclient.NewClient(c).BalanceAt(ctx, account0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := new(big.Int).Mul(big.NewInt(25), big.NewInt(1e18)); bal.Cmp(want) != 0 {
		t.Fatalf("balance = %s, want 25 ETH", bal)
	}
	// Automine: a transaction is mined on its own, in block 1.
	var h common.Hash
	if err := c.Call(&h, "eth_sendTransaction", map[string]any{"from": account0, "to": accounts[1], "value": "0x1"}); err != nil {
		t.Fatal(err)
	}
	eth := ethclient.NewClient(c)
	var r *types.Receipt
	for deadline := time.Now().Add(time.Second); r == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		r, _ = eth.TransactionReceipt(ctx, h)
	}
	if r == nil || r.BlockNumber.Uint64() != 1 {
		t.Fatalf("transaction not mined in block 1 without a block time: %+v", r)
	}
	if st, _ := chainStatus(ctx, p); st.BlockNumber != 1 {
		t.Fatalf("status block = %d, want 1", st.BlockNumber)
	}

	pid := p.node.proc.cmd.Process.Pid
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Fatalf("anvil pid %d still exists after Stop", pid)
	}
	if st, err := chainStatus(ctx, p); err != nil || st.Running {
		t.Fatalf("status after stop = %+v, %v", st, err)
	}
	_, err = p.Snapshot(ctx, sdk.SnapshotRequest{})
	testutil.WantCode(t, err, sdk.CodeChainNotRunning)

	// Anvil printed private keys and the mnemonic at start: neither is logged.
	out := logs.String()
	if !strings.Contains(out, "Listening on") {
		t.Fatalf("anvil output not in the log:\n%s", out)
	}
	if regexp.MustCompile(`0x[0-9a-fA-F]{64}\b`).MatchString(strings.Split(out, "eth_sendTransaction")[0]) {
		t.Fatalf("a private key reached the log:\n%s", out)
	}
	if strings.Contains(out, DefaultMnemonic) || strings.Contains(out, "spread raise") {
		t.Fatalf("the mnemonic reached the log")
	}
}

func TestStartOnBusyPortIsPortInUse(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin(t, nil)
	_, err := p.start(context.Background(), sdk.ChainOptions{Port: testutil.BusyPort(t)})
	testutil.WantCode(t, err, sdk.CodePortInUse)
}

// TestBusyPortNamesWhereItCameFrom: a busy port's MM_PORT_IN_USE says
// whether the start, the port setting or the default chose it (a launch
// retries only a busy default on a free port) and how to choose another.
func TestBusyPortNamesWhereItCameFrom(t *testing.T) {
	busy := testutil.BusyPort(t)
	ctx := context.Background()
	p, _ := newPlugin(t, map[string]any{"port": busy})
	_, err := p.start(ctx, sdk.ChainOptions{})
	testutil.WantCode(t, err, sdk.CodePortInUse)
	if e := sdk.AsError(err); e.Details["source"] != "setting" || !strings.Contains(e.Message, "plugins.chain.settings.port") || !strings.Contains(e.Message, fmt.Sprint(busy)) {
		t.Errorf("busy port setting: %v %v", e.Message, e.Details)
	}
	_, err = p.start(ctx, sdk.ChainOptions{Port: busy})
	if e := sdk.AsError(err); e == nil || e.Details["source"] != "start" {
		t.Errorf("busy start port: %v", err)
	}
	// The default port: held by this test, or by another process.
	if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", sdk.DefaultAnvilPort)); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	p, _ = newPlugin(t, nil)
	_, err = p.start(ctx, sdk.ChainOptions{})
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodePortInUse || e.Details["source"] != "default" || !strings.Contains(e.Message, "freePort") {
		t.Errorf("busy default port: %v", err)
	}
}

func TestSnapshotRevertSetBalanceMine(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin(t, map[string]any{"chainId": 31337})
	ctx := context.Background()
	st := startFresh(t, p, sdk.ChainOptions{})
	if st.ChainID != 31337 {
		t.Fatalf("chain id from settings = %d, want 31337", st.ChainID)
	}
	eth, err := ethclient.Dial(st.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer eth.Close()
	if id, _ := eth.ChainID(ctx); id.Int64() != 31337 {
		t.Fatalf("node chain id = %d", id)
	}
	other := common.HexToAddress("0x09781764C08DE8CA82E156bbf156A3ca217C7950")

	snap, err := p.Snapshot(ctx, sdk.SnapshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := setBalance(ctx, p, other.Hex(), "0x2a"); err != nil {
		t.Fatal(err)
	}
	if b, _ := eth.BalanceAt(ctx, other, nil); b.Int64() != 42 {
		t.Fatalf("balance after set_balance = %s, want 42", b)
	}
	if err := p.mine(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if n, _ := eth.BlockNumber(ctx); n != 3 {
		t.Fatalf("block after mining 3 = %d", n)
	}
	if err := revert(ctx, p, snap.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := eth.BlockNumber(ctx); n != 0 {
		t.Fatalf("block after revert = %d, want 0", n)
	}
	if b, _ := eth.BalanceAt(ctx, other, nil); b.Cmp(big.NewInt(42)) == 0 {
		t.Fatal("balance not reverted")
	}
	testutil.WantCode(t, revert(ctx, p, snap.ID), sdk.CodeInvalidInput)
	testutil.WantCode(t, setBalance(ctx, p, "0x123", "1"), sdk.CodeInvalidInput)
	testutil.WantCode(t, setBalance(ctx, p, other.Hex(), "-5"), sdk.CodeInvalidInput)
	testutil.WantCode(t, p.mine(ctx, 0), sdk.CodeInvalidInput)
}

func TestAttachToRunningNode(t *testing.T) {
	t.Parallel()
	owner, _ := newPlugin(t, nil)
	ctx := context.Background()
	st := startFresh(t, owner, sdk.ChainOptions{})
	guest, _ := newPlugin(t, nil)
	gst, err := guest.start(ctx, sdk.ChainOptions{RPCURL: st.RPCURL})
	if err != nil {
		t.Fatal(err)
	}
	if !gst.External || gst.ChainID != 1337 || gst.Port != st.Port {
		t.Fatalf("attached status = %+v", gst)
	}
	if err := guest.mine(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := guest.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// The owner's Anvil still runs after the guest let go.
	if s, _ := chainStatus(ctx, owner); !s.Running || s.BlockNumber != 2 {
		t.Fatalf("owner status after guest stop = %+v", s)
	}

	dead, _ := newPlugin(t, nil)
	_, err = dead.start(ctx, sdk.ChainOptions{RPCURL: fmt.Sprintf("http://127.0.0.1:%d", testutil.FreePort(t))})
	testutil.WantCode(t, err, sdk.CodeChainNotRunning)
}

func TestAnvilThatExitsIsLaunchFailedWithItsOutput(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin(t, nil)
	start := time.Now()
	_, err := p.start(context.Background(), sdk.ChainOptions{Port: testutil.FreePort(t), Hardfork: "no-such-fork"})
	e := testutil.WantCode(t, err, sdk.CodeLaunchFailed)
	if tail, _ := e.Details["tail"].(string); !strings.Contains(strings.ToLower(tail), "hardfork") {
		t.Fatalf("details.tail does not show anvil's complaint: %+v", e)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("an early exit was noticed only after %s", time.Since(start))
	}
	if st, _ := chainStatus(context.Background(), p); st.Running {
		t.Fatal("status says running after a failed start")
	}
}

func TestToolsDriveTheChain(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin(t, nil)
	ctx := context.Background()
	ev := sdk.NopEvents{}
	port := testutil.FreePort(t)

	_, err := testutil.CallTool(ctx, p, "start", []byte(`{"port":`+fmt.Sprint(port)+`,"colour":"red"}`), ev)
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	res, err := testutil.CallTool(ctx, p, "start", []byte(`{"port":`+fmt.Sprint(port)+`}`), ev)
	if err != nil {
		t.Fatal(err)
	}
	if st := res.(sdk.ChainStatus); !st.Running || st.Port != port {
		t.Fatalf("start result = %+v", st)
	}
	res, err = testutil.CallTool(ctx, p, "snapshot", nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	id := res.(map[string]any)["id"].(string)
	res, err = testutil.CallTool(ctx, p, "mine", []byte(`{"blocks":4}`), ev)
	if err != nil {
		t.Fatal(err)
	}
	if bn := res.(map[string]any)["blockNumber"]; bn != uint64(4) {
		t.Fatalf("mine result = %v", res)
	}
	if _, err := testutil.CallTool(ctx, p, "revert", []byte(`{"id":"`+id+`"}`), ev); err != nil {
		t.Fatal(err)
	}
	if _, err := testutil.CallTool(ctx, p, "set_balance", []byte(`{"address":"`+account0.Hex()+`","wei":"1000"}`), ev); err != nil {
		t.Fatal(err)
	}
	if _, err := testutil.CallTool(ctx, p, "stop", []byte(`{}`), ev); err != nil {
		t.Fatal(err)
	}
	res, err = testutil.CallTool(ctx, p, "status", nil, ev)
	if err != nil || res.(sdk.ChainStatus).Running {
		t.Fatalf("status after stop = %v, %v", res, err)
	}
	_, err = testutil.CallTool(ctx, p, "mine", nil, ev)
	testutil.WantCode(t, err, sdk.CodeChainNotRunning)
	_, err = testutil.CallTool(ctx, p, "fly", nil, ev)
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
}

func BenchmarkAnvilStartToReady(b *testing.B) {
	p, _ := newPlugin(b, nil)
	ctx := context.Background()
	for b.Loop() {
		if _, err := p.start(ctx, sdk.ChainOptions{Port: testutil.FreePort(b)}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := p.Stop(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// TestStartLoadsAState: a chain started with another's dumped state
// (a checkpoint's) answers at that state's block with its balances and
// nonces, and goes on apart from the chain it came from.
func TestStartLoadsAState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := newPlugin(t, nil)
	stA := startFresh(t, a, sdk.ChainOptions{})
	other := "0x09781764c08de8ca82e156bbf156a3ca217c7950"
	if err := setBalance(ctx, a, other, "12345"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Mine(ctx, sdk.MineRequest{Blocks: 3}); err != nil {
		t.Fatal(err)
	}
	var dump json.RawMessage
	if err := a.call(ctx, &dump, "anvil_dumpState"); err != nil {
		t.Fatal(err)
	}

	b, _ := newPlugin(t, nil)
	res, err := b.StartChain(ctx, sdk.StartChainRequest{ChainOptions: sdk.ChainOptions{FreePort: true}, State: dump})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.Port == stA.Port || res.Status.BlockNumber != 3 {
		t.Fatalf("loaded chain's status %+v, want block 3 on a port of its own (a's %d)", res.Status, stA.Port)
	}
	eth, err := ethclient.Dial(res.Status.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer eth.Close()
	bal, err := eth.BalanceAt(ctx, common.HexToAddress(other), nil)
	if err != nil || bal.Int64() != 12345 {
		t.Fatalf("balance on the loaded chain %v, %v; want 12345", bal, err)
	}
	// Apart: a's change is not b's.
	if err := setBalance(ctx, a, other, "1"); err != nil {
		t.Fatal(err)
	}
	if bal, _ := eth.BalanceAt(ctx, common.HexToAddress(other), nil); bal.Int64() != 12345 {
		t.Fatalf("b sees a's change: %v", bal)
	}

	c, _ := newPlugin(t, nil)
	_, err = c.StartChain(ctx, sdk.StartChainRequest{ChainOptions: sdk.ChainOptions{FreePort: true}, State: json.RawMessage(`{"not":"a dump"}`)})
	if sdk.AsError(err).Code != sdk.CodeInvalidInput {
		t.Fatalf("a state that is not a dump: %v, want %s", err, sdk.CodeInvalidInput)
	}
}
