package contracts

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// simSession is a session on go-ethereum's simulated backend, deploying
// from a funded key; blocks are committed when a receipt is missing.
func simSession(t *testing.T, p *Plugin) (*session, simulated.Client) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	sim := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(100), oneEther)}}, simulated.WithBlockGasLimit(30_000_000))
	t.Cleanup(func() { _ = sim.Close() })
	c := sim.Client()
	id, err := c.ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := &session{
		key:      "sim",
		b:        c,
		snd:      &keySender{b: c, key: key, from: from, chainID: id},
		account0: from,
		nudge:    func(context.Context) error { sim.Commit(); return nil },
	}
	s.entryPoint = p.entryPointFor(s)
	return s, c
}

func TestDeployLogicOnSimulatedBackend(t *testing.T) {
	t.Parallel()
	p := newSeeder(t, "", nil, nil)
	s, c := simSession(t, p)
	ctx := context.Background()
	from := s.snd.From()

	hst, err := p.deployIn(ctx, s, HST)
	if err != nil {
		t.Fatal(err)
	}
	if bal := viewCall(t, c, abiOf(t, p, HST), common.HexToAddress(hst.ContractAddress), "balanceOf", from)[0].(*big.Int); bal.Int64() != 100000 {
		t.Fatalf("TST balance = %s", bal)
	}
	// The registry keeps the contract's ABI, for the host's decoding.
	if !strings.Contains(hst.ABI, `"name":"mint"`) || !strings.HasPrefix(hst.ABI, "[") {
		t.Fatalf("hst's deployment carries no ABI: %.80q", hst.ABI)
	}
	nfts, err := p.deployIn(ctx, s, NFTs)
	if err != nil {
		t.Fatal(err)
	}
	if owner := viewCall(t, c, abiOf(t, p, NFTs), common.HexToAddress(nfts.ContractAddress), "ownerOf", big.NewInt(1))[0].(common.Address); owner != from {
		t.Fatalf("ownerOf(1) = %s, want %s", owner, from)
	}
	// The factory brings its own EntryPoint along, first.
	f, err := p.deployIn(ctx, s, SimpleAccountFactory)
	if err != nil {
		t.Fatal(err)
	}
	list := p.registry.list()
	if len(list) != 4 || list[2].ContractName != EntryPoint || list[3] != f || f.Deployer != from.Hex() {
		t.Fatalf("registry = %+v", list)
	}

	// A constructor that reverts is MM_SEED_FAILED, and nothing is recorded.
	_, err = s.create(ctx, "deploying reverter", common.FromHex("0x60006000fd"))
	testutil.WantCode(t, err, sdk.CodeContractDeployFailed)
	// Creation code that deploys empty code is MM_SEED_FAILED too.
	_, err = s.create(ctx, "deploying nothing", common.FromHex("0x60006000f3"))
	testutil.WantCode(t, err, sdk.CodeContractDeployFailed)
	if n := len(p.registry.list()); n != 4 {
		t.Fatalf("registry grew to %d after failures", n)
	}
}

func TestCreationDataEncodesConstructorArgs(t *testing.T) {
	t.Parallel()
	p := newSeeder(t, "", nil, nil)
	b, _ := builtinByName(HST)
	art, err := b.load(p.catalog, p.nodeModulesDirs())
	if err != nil {
		t.Fatal(err)
	}
	args, _ := hstArgs(context.Background(), nil)
	data, err := art.creationData(args)
	if err != nil {
		t.Fatal(err)
	}
	// bytecode + 4 head words + 2 strings (length word + data word each).
	if got, want := len(data)-len(art.Bytecode), 32*8; got != want {
		t.Fatalf("encoded args are %d bytes, want %d", got, want)
	}
	if _, err := art.creationData([]any{"wrong"}); err == nil {
		t.Fatal("bad constructor args were accepted")
	}
}

func TestMissingPackagesAreDependenciesMissing(t *testing.T) {
	t.Parallel()
	p := New(nil)
	p.getenv = func(string) string { return "" }
	p.executable = func() (string, error) { return "/nonexistent/bin/x", nil }
	if err := p.Configure(context.Background(), sdk.Config{Workspace: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{HST, EntryPoint} {
		b, _ := builtinByName(n)
		_, err := b.load(p.catalog, p.nodeModulesDirs())
		testutil.WantCode(t, err, sdk.CodeDependenciesMissing)
	}
	testutil.WantCode(t, p.Configure(context.Background(), sdk.Config{Settings: []byte(`{"artifactDir":"x"}`)}), sdk.CodeInvalidConfig)
}
