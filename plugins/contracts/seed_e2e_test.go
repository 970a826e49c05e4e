package contracts

import (
	"context"
	"encoding/hex"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// account0 is account 0 of MetaMask's test SRP, Anvil's deployer.
var account0 = common.HexToAddress("0x5CfE73b6021E818B776b421B1c4Db2474086a7e1")

var allNine = []string{HST, NFTs, ERC1155, PiggyBank, Failing, Multisig, EntryPoint, SimpleAccountFactory, VerifyingPaymaster}

func TestSeedsAllNineMetaMaskContracts(t *testing.T) {
	t.Parallel()
	url := startChain(t, 0)
	p := newSeeder(t, "", nil, nil)
	ctx := context.Background()

	res, err := p.deployMany(ctx, url, allNine, sdk.DeployOptions{}, sdk.NopEvents{})
	if err != nil {
		t.Fatal(err)
	}
	want := allNine
	if !paymasterInstalled(t) {
		// @account-abstraction/contracts 0.8 has no VerifyingPaymaster: the
		// user is told what to install.
		want = allNine[:8]
		if len(res.Failed) != 1 || res.Failed[0].ContractName != VerifyingPaymaster || !strings.Contains(res.Failed[0].Error, "@account-abstraction/contracts@0.6.0") {
			t.Fatalf("failed = %+v", res.Failed)
		}
		t.Log("VerifyingPaymaster artifact not installed: checked the error instead (install @account-abstraction/contracts@0.6.0)")
	} else if len(res.Failed) != 0 {
		t.Fatalf("failed = %+v", res.Failed)
	}
	if len(res.Deployed) != len(want) {
		t.Fatalf("deployed %d, want %d: %+v", len(res.Deployed), len(want), res)
	}
	eth, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer eth.Close()
	addr := map[string]common.Address{}
	millis := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for i, d := range res.Deployed {
		if d.ContractName != want[i] || d.Deployer != account0.Hex() || !millis.MatchString(d.DeployedAt) || d.TxHash == "" || d.BlockNumber == 0 {
			t.Fatalf("deployment %d = %+v", i, d)
		}
		a := common.HexToAddress(d.ContractAddress)
		if code, _ := eth.CodeAt(ctx, a, nil); len(code) == 0 {
			t.Fatalf("%s has no code at %s", d.ContractName, a)
		}
		addr[d.ContractName] = a
	}

	// hst: the deployer holds the initial 10 TST (4 decimals: 100000 units).
	hst := abiOf(t, p, HST)
	if bal := viewCall(t, eth, hst, addr[HST], "balanceOf", account0)[0].(*big.Int); bal.Int64() != 100000 {
		t.Fatalf("TST balance = %s, want 10 TST (100000 units)", bal)
	}
	if sym := viewCall(t, eth, hst, addr[HST], "symbol")[0]; sym != "TST" {
		t.Fatalf("symbol = %v", sym)
	}
	if dec := viewCall(t, eth, hst, addr[HST], "decimals")[0]; dec != uint8(4) {
		t.Fatalf("TST decimals = %v", dec)
	}
	// nfts: token 1 was minted to the deployer.
	if owner := viewCall(t, eth, abiOf(t, p, NFTs), addr[NFTs], "ownerOf", big.NewInt(1))[0].(common.Address); owner != account0 {
		t.Fatalf("ownerOf(1) = %s", owner)
	}
	// erc1155: mintBatch(deployer, [1,2,3], [1,1,1e14]).
	bals := viewCall(t, eth, abiOf(t, p, ERC1155), addr[ERC1155], "balanceOfBatch",
		[]common.Address{account0, account0, account0}, []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(3)})[0].([]*big.Int)
	if len(bals) != 3 || bals[0].Int64() != 1 || bals[1].Int64() != 1 || bals[2].Int64() != 100000000000000 {
		t.Fatalf("balanceOfBatch = %v", bals)
	}
	// The factory (and paymaster) use the EntryPoint deployed here.
	if ep := factoryEntryPoint(t, p, eth, addr[SimpleAccountFactory]); ep != addr[EntryPoint] {
		t.Fatalf("factory's account entryPoint() = %s, want %s", ep, addr[EntryPoint])
	}
	if paymasterInstalled(t) {
		pm := abiOf(t, p, VerifyingPaymaster)
		if ep := viewCall(t, eth, pm, addr[VerifyingPaymaster], "entryPoint")[0].(common.Address); ep != addr[EntryPoint] {
			t.Fatalf("paymaster entryPoint() = %s, want %s", ep, addr[EntryPoint])
		}
		if s := viewCall(t, eth, pm, addr[VerifyingPaymaster], "verifyingSigner")[0].(common.Address); s != account0 {
			t.Fatalf("paymaster verifyingSigner() = %s", s)
		}
	}
	// failing: any call reverts.
	f := addr[Failing]
	if _, err := eth.CallContract(ctx, ethereum.CallMsg{From: account0, To: &f}, nil); err == nil {
		t.Fatal("a call to failing did not revert")
	}
	// No extra EntryPoint was deployed for the trio.
	list := p.registry.list()
	if len(list) != len(want) {
		t.Fatalf("registry has %d entries, want %d", len(list), len(want))
	}
}

func TestTrioDeploysItsOwnEntryPointFirst(t *testing.T) {
	t.Parallel()
	url := startChain(t, 0)
	p := newSeeder(t, "", nil, nil)
	ctx := context.Background()
	d, err := p.deploy(ctx, url, SimpleAccountFactory, sdk.DeployOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list := p.registry.list()
	if len(list) != 2 || list[0].ContractName != EntryPoint || list[1] != d {
		t.Fatalf("registry = %+v", list)
	}
	eth, _ := ethclient.Dial(url)
	defer eth.Close()
	if ep := factoryEntryPoint(t, p, eth, common.HexToAddress(d.ContractAddress)); ep.Hex() != list[0].ContractAddress {
		t.Fatalf("entryPoint() = %s, want %s", ep, list[0].ContractAddress)
	}
	// A second factory reuses that EntryPoint; redeploying keeps both entries.
	if _, err := p.deploy(ctx, url, SimpleAccountFactory, sdk.DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	list = p.registry.list()
	if len(list) != 3 || list[2].ContractName != SimpleAccountFactory || list[2].ContractAddress == list[1].ContractAddress {
		t.Fatalf("registry after redeploy = %+v", list)
	}
	if _, err := p.Clear(ctx, sdk.ClearRequest{}); err != nil {
		t.Fatal(err)
	}
	if list = p.registry.list(); len(list) != 0 {
		t.Fatalf("registry after Clear = %+v", list)
	}
}

func TestImpersonatedAndPrivateKeyDeployers(t *testing.T) {
	t.Parallel()
	url := startChain(t, 0)
	logs := &strings.Builder{}
	log := hclog.New(&hclog.LoggerOptions{Output: &lockedWriter{w: logs}, Level: hclog.Trace})
	p := newSeeder(t, "", nil, log)
	ctx := context.Background()
	eth, _ := ethclient.Dial(url)
	defer eth.Close()

	// fromAddress: an address with no key and no ether is impersonated.
	who := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	d, err := p.deploy(ctx, url, PiggyBank, sdk.DeployOptions{DeployerOptions: sdk.DeployerOptions{FromAddress: who.Hex()}})
	if err != nil {
		t.Fatal(err)
	}
	var tx struct {
		From  common.Address `json:"from"`
		Nonce hexutil.Uint64 `json:"nonce"`
	}
	if err := eth.Client().CallContext(ctx, &tx, "eth_getTransactionByHash", d.TxHash); err != nil {
		t.Fatal(err)
	}
	if tx.From != who || d.Deployer != who.Hex() || common.HexToAddress(d.ContractAddress) != crypto.CreateAddress(who, uint64(tx.Nonce)) {
		t.Fatalf("impersonated deploy = %+v, transaction from %s nonce %d", d, tx.From, tx.Nonce)
	}

	// fromPrivateKey: funded, signed locally; the HST goes to that account.
	key, _ := crypto.GenerateKey()
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	from := crypto.PubkeyToAddress(key.PublicKey)
	d, err = p.deploy(ctx, url, HST, sdk.DeployOptions{DeployerOptions: sdk.DeployerOptions{FromPrivateKey: "0x" + keyHex}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Deployer != from.Hex() {
		t.Fatalf("deployer = %s, want %s", d.Deployer, from)
	}
	if bal := viewCall(t, eth, abiOf(t, p, HST), common.HexToAddress(d.ContractAddress), "balanceOf", from)[0].(*big.Int); bal.Int64() != 100000 {
		t.Fatalf("TST balance of the key's account = %s", bal)
	}
	if strings.Contains(strings.ToLower(logs.String()), keyHex) {
		t.Fatal("the private key reached the log")
	}
	_, err = p.deploy(ctx, url, HST, sdk.DeployOptions{DeployerOptions: sdk.DeployerOptions{FromPrivateKey: "0x12zz"}})
	if e := testutil.WantCode(t, err, sdk.CodeInvalidInput); strings.Contains(e.Message, "12zz") {
		t.Fatal("error message repeats the key")
	}
}

func TestArtifactsDeployByName(t *testing.T) {
	t.Parallel()
	url := startChain(t, 0)
	ws := t.TempDir()
	writeJSON(t, ws, "out/Answer.sol/Answer.json", map[string]any{"abi": []any{}, "bytecode": map[string]any{"object": answer42}})
	writeJSON(t, ws, "out/IThing.sol/IThing.json", map[string]any{"abi": []any{}, "bytecode": map[string]any{"object": "0x"}})
	writeJSON(t, ws, "out/build-info/x.json", map[string]any{"bytecode": answer42, "contractName": "Hidden"})
	writeJSON(t, ws, "artifacts/contracts/Hh.sol/HardhatAnswer.json", map[string]any{"_format": "hh-sol-artifact-1", "contractName": "HardhatAnswer", "abi": []any{}, "bytecode": answer42})
	writeJSON(t, ws, "artifacts/contracts/Args.sol/NeedsArgs.json", map[string]any{"contractName": "NeedsArgs", "bytecode": answer42,
		"abi": []any{map[string]any{"type": "constructor", "inputs": []any{map[string]any{"name": "x", "type": "uint256"}}}}})
	writeJSON(t, ws, "artifacts/contracts/Bad.sol/Reverts.json", map[string]any{"contractName": "Reverts", "abi": []any{}, "bytecode": "0x60006000fd"})
	p := newSeeder(t, ws, map[string]any{"artifactDirs": []string{"out", "artifacts"}}, nil)
	ctx := context.Background()

	names := p.available()
	for _, n := range []string{"Answer", "HardhatAnswer", HST, VerifyingPaymaster} {
		if !slices.Contains(names, n) {
			t.Fatalf("available %v lacks %s", names, n)
		}
	}
	if slices.Contains(names, "IThing") || slices.Contains(names, "Hidden") || !slices.IsSorted(names) {
		t.Fatalf("available = %v", names)
	}
	eth, _ := ethclient.Dial(url)
	defer eth.Close()
	for _, n := range []string{"Answer", "HardhatAnswer"} {
		d, err := p.deploy(ctx, url, n, sdk.DeployOptions{})
		if err != nil {
			t.Fatal(err)
		}
		to := common.HexToAddress(d.ContractAddress)
		out, err := eth.CallContract(ctx, ethereum.CallMsg{To: &to}, nil)
		if err != nil || new(big.Int).SetBytes(out).Int64() != 42 {
			t.Fatalf("%s answers %x, %v", n, out, err)
		}
	}
	_, err := p.deploy(ctx, url, "NeedsArgs", sdk.DeployOptions{})
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	_, err = p.deploy(ctx, url, "Reverts", sdk.DeployOptions{})
	testutil.WantCode(t, err, sdk.CodeContractDeployFailed)
}

func TestUnknownNameAndChainDown(t *testing.T) {
	t.Parallel()
	p := newSeeder(t, "", nil, nil)
	ctx := context.Background()
	_, err := p.deploy(ctx, "", "HST2", sdk.DeployOptions{})
	e := testutil.WantCode(t, err, sdk.CodeInvalidInput)
	avail, _ := e.Details["available"].([]string)
	if !slices.Equal(avail, []string{EntryPoint, ERC1155, Failing, HST, Multisig, NFTs, PiggyBank, SimpleAccountFactory, VerifyingPaymaster}) {
		t.Fatalf("details.available = %v", e.Details["available"])
	}
	_, err = p.deploy(ctx, "", "HST", sdk.DeployOptions{})
	if e := testutil.WantCode(t, err, sdk.CodeInvalidInput); !strings.Contains(e.Message, `"hst"`) {
		t.Fatalf("no hint for a near miss: %s", e.Message)
	}
	down := "http://127.0.0.1:" + itoa(testutil.FreePort(t))
	_, err = p.deploy(ctx, down, HST, sdk.DeployOptions{})
	testutil.WantCode(t, err, sdk.CodeChainNotRunning)
	_, err = p.deployMany(ctx, down, []string{HST}, sdk.DeployOptions{}, sdk.NopEvents{})
	testutil.WantCode(t, err, sdk.CodeChainNotRunning)
}

func TestSeedingWorksWithABlockTime(t *testing.T) {
	t.Parallel()
	url := startChain(t, 2)
	p := newSeeder(t, "", nil, nil)
	start := time.Now()
	d, err := p.deploy(context.Background(), url, NFTs, sdk.DeployOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nfts with --block-time 2 deployed in %s at block %d", time.Since(start), d.BlockNumber)
}

func TestToolsSeedContracts(t *testing.T) {
	t.Parallel()
	url := startChain(t, 0)
	p := newSeeder(t, "", nil, nil)
	ctx := context.Background()
	ev := sdk.NopEvents{}
	_, err := testutil.CallTool(ctx, p, "deploy", []byte(`{"rpcUrl":"`+url+`","contractName":"hst","extra":1}`), ev)
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
	res, err := testutil.CallTool(ctx, p, "deploy", []byte(`{"rpcUrl":"`+url+`","contractName":"hst","hardfork":"prague"}`), ev)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.(sdk.Deployment); d.ContractName != HST {
		t.Fatalf("deploy result = %+v", d)
	}
	res, err = testutil.CallTool(ctx, p, "deploy_many", []byte(`{"rpcUrl":"`+url+`","contracts":["piggybank","nope","multisig"]}`), ev)
	if err != nil {
		t.Fatal(err)
	}
	m := res.(sdk.DeployManyResponse)
	if len(m.Deployed) != 2 || len(m.Failed) != 1 || m.Failed[0].ContractName != "nope" {
		t.Fatalf("deploy_many = %+v", m)
	}
	res, _ = testutil.CallTool(ctx, p, "list", nil, ev)
	if l := res.(map[string]any)["contracts"].([]sdk.Deployment); len(l) != 3 {
		t.Fatalf("list = %+v", l)
	}
	res, _ = testutil.CallTool(ctx, p, "available", []byte(`{}`), ev)
	if l := res.(map[string]any)["contracts"].([]string); len(l) != 9 {
		t.Fatalf("available = %v", l)
	}
}

func BenchmarkDeployHST(b *testing.B) {
	url := startChain(b, 0)
	p := newSeeder(b, "", nil, nil)
	ctx := context.Background()
	if _, err := p.deploy(ctx, url, HST, sdk.DeployOptions{}); err != nil { // warm the caches
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.deploy(ctx, url, HST, sdk.DeployOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeployAllNine(b *testing.B) {
	url := startChain(b, 0)
	p := newSeeder(b, "", nil, nil)
	ctx := context.Background()
	names := allNine
	if !paymasterInstalled(b) {
		names = allNine[:8]
	}
	for b.Loop() {
		res, err := p.deployMany(ctx, url, names, sdk.DeployOptions{}, sdk.NopEvents{})
		if err != nil || len(res.Failed) > 0 {
			b.Fatal(err, res.Failed)
		}
	}
}
