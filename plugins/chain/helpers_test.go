package chain

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// anvilBin is $ANVIL_PATH or the repo's .tools Anvil.
func anvilBin(t testing.TB) string {
	t.Helper()
	p := os.Getenv(sdk.EnvAnvilPath)
	if p == "" {
		p = filepath.Join(testutil.RepoRoot(t), ".tools", "node_modules", ".bin", "anvil")
	}
	if st, err := os.Stat(p); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("anvil not found at %s: run `npm ci --prefix .tools`", p)
	}
	return p
}

// newPlugin returns a configured plugin with the repo's Anvil and a debug
// log captured in the returned buffer; it is stopped at the end of the test.
func newPlugin(t testing.TB, settings map[string]any) (*Plugin, *testutil.Buffer) {
	t.Helper()
	buf := &testutil.Buffer{}
	log := hclog.New(&hclog.LoggerOptions{Output: buf, Level: hclog.Debug})
	p := New(log)
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["anvilPath"]; !ok {
		settings["anvilPath"] = anvilBin(t)
	}
	raw, _ := json.Marshal(settings)
	if err := p.Configure(context.Background(), sdk.Config{Workspace: t.TempDir(), Settings: raw}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(context.Background()) })
	return p, buf
}

// startFresh starts p on a free port, trying another port when a process
// outside this test took the picked one in the meantime.
func startFresh(t testing.TB, p *Plugin, o sdk.ChainOptions) sdk.ChainStatus {
	t.Helper()
	for try := 0; ; try++ {
		o.Port = testutil.FreePort(t)
		st, err := p.start(context.Background(), o)
		if err == nil {
			return st
		}
		if sdk.AsError(err).Code != sdk.CodePortInUse || try == 4 {
			t.Fatal(err)
		}
	}
}

// chainStatus is p's ChainStatus.
func chainStatus(ctx context.Context, p *Plugin) (sdk.ChainStatus, error) {
	res, err := p.ChainStatus(ctx, sdk.ChainStatusRequest{})
	return res.Status, err
}

// setBalance is p's SetBalance.
func setBalance(ctx context.Context, p *Plugin, address, wei string) error {
	_, err := p.SetBalance(ctx, sdk.SetBalanceRequest{Address: address, Wei: wei})
	return err
}

// revert is p's Revert.
func revert(ctx context.Context, p *Plugin, id string) error {
	_, err := p.Revert(ctx, sdk.RevertRequest{ID: id})
	return err
}
