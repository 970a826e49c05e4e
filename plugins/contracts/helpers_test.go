package contracts

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/plugins/chain"
	"github.com/mmcp-dev/mmcp/sdk"
)

// nodeModules is $MMCP_NODE_MODULES or the repo's .tools/node_modules.
func nodeModules(t testing.TB) string {
	if nm := os.Getenv("MMCP_NODE_MODULES"); nm != "" {
		return nm
	}
	return filepath.Join(testutil.RepoRoot(t), ".tools", "node_modules")
}

// anvilBin is $ANVIL_PATH or the repo's .tools Anvil.
func anvilBin(t testing.TB) string {
	if p := os.Getenv("ANVIL_PATH"); p != "" {
		return p
	}
	return filepath.Join(testutil.RepoRoot(t), ".tools", "node_modules", ".bin", "anvil")
}

// startChain runs a fresh Anvil (automine unless blockTime) for the test.
func startChain(t testing.TB, blockTime int) string {
	t.Helper()
	c := chain.New(nil)
	raw, _ := json.Marshal(map[string]any{"anvilPath": anvilBin(t)})
	if err := c.Configure(context.Background(), sdk.Config{Workspace: t.TempDir(), Settings: raw}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	for try := 0; ; try++ {
		// Another process may take the picked port meanwhile: try another.
		st, err := c.StartChain(context.Background(), sdk.StartChainRequest{ChainOptions: sdk.ChainOptions{Port: testutil.FreePort(t), BlockTime: blockTime}})
		if err == nil {
			return st.Status.RPCURL
		}
		if sdk.AsError(err).Code != sdk.CodePortInUse || try == 4 {
			t.Fatal(err)
		}
	}
}

// newSeeder returns a configured plugin; settings gain nodeModules.
func newSeeder(t testing.TB, workspace string, settings map[string]any, log hclog.Logger) *Plugin {
	t.Helper()
	if settings == nil {
		settings = map[string]any{}
	}
	settings["nodeModules"] = nodeModules(t)
	raw, _ := json.Marshal(settings)
	p := New(log)
	if workspace == "" {
		workspace = t.TempDir()
	}
	if err := p.Configure(context.Background(), sdk.Config{Workspace: workspace, Settings: raw}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(context.Background()) })
	return p
}

// paymasterInstalled reports whether the resolved @account-abstraction
// package ships VerifyingPaymaster (0.6/0.7 do, 0.8 does not).
func paymasterInstalled(t testing.TB) bool {
	base, _ := findPackageFile([]string{nodeModules(t)}, aaPkg, aaArtifacts...)
	return base != ""
}

// viewCall calls a view method of a built-in contract and unpacks it.
func viewCall(t testing.TB, b interface {
	CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error)
}, a abi.ABI, addr common.Address, method string, args ...any) []any {
	t.Helper()
	data, err := a.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.CallContract(context.Background(), ethereum.CallMsg{To: &addr, Data: data}, nil)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	res, err := a.Unpack(method, out)
	if err != nil {
		t.Fatalf("unpack %s: %v", method, err)
	}
	return res
}

// abiOf loads a built-in's ABI from the installed packages.
func abiOf(t testing.TB, p *Plugin, name string) abi.ABI {
	t.Helper()
	b, _ := builtinByName(name)
	a, err := b.load(p.catalog, p.nodeModulesDirs())
	if err != nil {
		t.Fatal(err)
	}
	return a.ABI
}

// writeJSON writes v as JSON at dir/rel.
func writeJSON(t testing.TB, dir, rel string, v any) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// answer42 is creation code whose contract returns 42 for any call.
const answer42 = "0x600a600c600039600a6000f3" + "602a60005260206000f3"

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func itoa(n int) string { return strconv.Itoa(n) }

// factoryEntryPoint is entryPoint() of the factory's account
// implementation (the factory itself has no such getter).
func factoryEntryPoint(t testing.TB, p *Plugin, eth *ethclient.Client, factory common.Address) common.Address {
	t.Helper()
	impl := viewCall(t, eth, abiOf(t, p, SimpleAccountFactory), factory, "accountImplementation")[0].(common.Address)
	base, _ := findPackageFile(p.nodeModulesDirs(), aaPkg, "artifacts/SimpleAccount.json")
	raw, err := os.ReadFile(filepath.Join(base, "artifacts", "SimpleAccount.json"))
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		ABI abi.ABI `json:"abi"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return viewCall(t, eth, h.ABI, impl, "entryPoint")[0].(common.Address)
}
