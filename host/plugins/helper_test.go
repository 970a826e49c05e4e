package plugins

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// TestMain doubles as the plugins of these tests: run under the name
// mmcp-plugin-<name> (a symlink to the test binary), it serves that fake
// plugin instead of running the tests.
func TestMain(m *testing.M) {
	switch strings.TrimPrefix(filepath.Base(os.Args[0]), Prefix) {
	case "fakechain":
		sdk.Main(fakeChain{})
	case "fakefixture":
		sdk.Main(fakeFixture{})
	}
	os.Exit(m.Run())
}

// installFakes links the fake plugins into a fresh directory, for
// Config.ExeDir.
func installFakes(t *testing.T, names ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Symlink(self, filepath.Join(dir, Prefix+n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// crashBlocks makes fakeChain.Mine exit the plugin process.
const crashBlocks = 666

// fakeChain is a per-session plugin: its Status and its pid tool say which
// process answered.
type fakeChain struct{}

func (fakeChain) Info() sdk.Info                              { return sdk.Info{Name: "fakechain", Version: "0.0.1"} }
func (fakeChain) Configure(context.Context, sdk.Config) error { return nil }
func (fakeChain) Stop(context.Context) error                  { return nil }
func (fakeChain) Start(context.Context, sdk.ChainOptions) (sdk.ChainStatus, error) {
	return sdk.ChainStatus{Running: true, Port: os.Getpid()}, nil
}
func (fakeChain) Status(context.Context) (sdk.ChainStatus, error) {
	return sdk.ChainStatus{Running: true, Port: os.Getpid()}, nil
}
func (fakeChain) Snapshot(context.Context) (string, error)         { return "0x1", nil }
func (fakeChain) Revert(context.Context, string) error             { return nil }
func (fakeChain) SetBalance(context.Context, string, string) error { return nil }
func (fakeChain) Mine(_ context.Context, blocks int) error {
	if blocks == crashBlocks {
		os.Exit(3)
	}
	return nil
}
func (fakeChain) Tools() []sdk.Tool {
	return []sdk.Tool{{Name: "pid", Description: "The plugin's pid.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
}
func (fakeChain) CallTool(context.Context, string, json.RawMessage, sdk.Events) (any, error) {
	return map[string]int{"pid": os.Getpid()}, nil
}

// fakeFixture is a shared plugin: Start's port is its pid.
type fakeFixture struct{}

func (fakeFixture) Info() sdk.Info                              { return sdk.Info{Name: "fakefixture", Version: "0.0.1"} }
func (fakeFixture) Configure(context.Context, sdk.Config) error { return nil }
func (fakeFixture) Stop(context.Context) error                  { return nil }
func (fakeFixture) Start(context.Context, sdk.WalletState, sdk.FixtureOptions) (sdk.FixtureStatus, error) {
	return sdk.FixtureStatus{Port: os.Getpid()}, nil
}
func (fakeFixture) Forget(context.Context, string) error { return nil }
func (fakeFixture) DefaultState(context.Context, sdk.StateOptions) (sdk.WalletState, error) {
	return sdk.WalletState(`{}`), nil
}
func (fakeFixture) OnboardingState(context.Context, sdk.StateOptions) (sdk.WalletState, error) {
	return sdk.WalletState(`{}`), nil
}
func (fakeFixture) ResolvePreset(context.Context, string, sdk.StateOptions) (sdk.WalletState, error) {
	return sdk.WalletState(`{}`), nil
}

var (
	_ sdk.Chain        = fakeChain{}
	_ sdk.ToolProvider = fakeChain{}
	_ sdk.Fixture      = fakeFixture{}
)
