package plugins

import (
	"context"
	"encoding/json"
	"errors"
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
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), Prefix)
	if name != filepath.Base(os.Args[0]) {
		fakeRun()
	}
	switch name {
	case "fakechain":
		sdk.Main(fakeChain{})
	case "fakefixture":
		sdk.Main(fakeFixture{})
	}
	os.Exit(m.Run())
}

// envRunLog names a file each run of a fake plugin appends its mode to
// ("describe" or "serve"); envNoDescribe makes the fakes refuse the
// describe mode, as a plugin with its own main does.
const (
	envRunLog     = "MMCP_FAKE_RUN_LOG"
	envNoDescribe = "MMCP_FAKE_NO_DESCRIBE"
)

// fakeRun is the start of a fake plugin's process: it logs its mode and
// refuses describe when told to.
func fakeRun() {
	mode := "serve"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if f := os.Getenv(envRunLog); f != "" {
		w, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err == nil {
			_, _ = w.WriteString(mode + "\n")
			_ = w.Close()
		}
	}
	if mode == "describe" && os.Getenv(envNoDescribe) != "" {
		os.Stderr.WriteString("usage: serve only\n")
		os.Exit(2)
	}
}

// runLog is what the fakes' runs logged (envRunLog).
func runLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\n", " "))
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

// fakeChain is a per-session plugin: its ChainStatus and its pid tool say which
// process answered.
type fakeChain struct{}

func (fakeChain) Info() sdk.Info                              { return sdk.Info{Name: "fakechain", Version: "0.0.1"} }
func (fakeChain) Configure(context.Context, sdk.Config) error { return configureGate() }
func (fakeChain) Stop(context.Context) error                  { return nil }
func (fakeChain) StartChain(context.Context, sdk.StartChainRequest) (sdk.StartChainResponse, error) {
	return sdk.StartChainResponse{Status: sdk.ChainStatus{Running: true, Port: os.Getpid()}}, nil
}
func (fakeChain) StopChain(context.Context, sdk.StopChainRequest) (sdk.StopChainResponse, error) {
	return sdk.StopChainResponse{}, nil
}
func (fakeChain) ChainStatus(context.Context, sdk.ChainStatusRequest) (sdk.ChainStatusResponse, error) {
	return sdk.ChainStatusResponse{Status: sdk.ChainStatus{Running: true, Port: os.Getpid()}}, nil
}
func (fakeChain) Snapshot(context.Context, sdk.SnapshotRequest) (sdk.SnapshotResponse, error) {
	return sdk.SnapshotResponse{ID: "0x1"}, nil
}
func (fakeChain) Revert(context.Context, sdk.RevertRequest) (sdk.RevertResponse, error) {
	return sdk.RevertResponse{}, nil
}
func (fakeChain) SetBalance(context.Context, sdk.SetBalanceRequest) (sdk.SetBalanceResponse, error) {
	return sdk.SetBalanceResponse{}, nil
}
func (fakeChain) Mine(_ context.Context, req sdk.MineRequest) (sdk.MineResponse, error) {
	if req.Blocks == crashBlocks {
		os.Exit(3)
	}
	return sdk.MineResponse{}, nil
}
func (fakeChain) Tools() []sdk.Tool {
	return []sdk.Tool{{Name: "pid", Description: "The plugin's pid.", InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {}
	}`)}}
}
func (fakeChain) CallTool(context.Context, sdk.CallToolRequest, sdk.Events) (sdk.CallToolResponse, error) {
	return sdk.CallToolResponse{Result: map[string]int{"pid": os.Getpid()}}, nil
}

// envFailConfigure makes the fakes' Configure fail; envGateConfigure
// names a FIFO their Configure reads a line from first (it blocks until
// the test writes it).
const (
	envFailConfigure = "MMCP_FAKE_FAIL_CONFIGURE"
	envGateConfigure = "MMCP_FAKE_GATE_CONFIGURE"
)

func configureGate() error {
	if fifo := os.Getenv(envGateConfigure); fifo != "" {
		b, err := os.ReadFile(fifo)
		if err != nil {
			return err
		}
		_ = b
	}
	if os.Getenv(envFailConfigure) != "" {
		return errors.New("configure refused (" + envFailConfigure + ")")
	}
	return nil
}

// fakeFixture is a shared plugin: StartFixture's port is its pid.
type fakeFixture struct{}

func (fakeFixture) Info() sdk.Info                              { return sdk.Info{Name: "fakefixture", Version: "0.0.1"} }
func (fakeFixture) Configure(context.Context, sdk.Config) error { return nil }
func (fakeFixture) Stop(context.Context) error                  { return nil }
func (fakeFixture) StartFixture(context.Context, sdk.StartFixtureRequest) (sdk.StartFixtureResponse, error) {
	return sdk.StartFixtureResponse{Status: sdk.FixtureStatus{Port: os.Getpid()}}, nil
}
func (fakeFixture) StopFixture(context.Context, sdk.StopFixtureRequest) (sdk.StopFixtureResponse, error) {
	return sdk.StopFixtureResponse{}, nil
}
func (fakeFixture) Forget(context.Context, sdk.ForgetRequest) (sdk.ForgetResponse, error) {
	return sdk.ForgetResponse{}, nil
}
func (fakeFixture) DefaultState(context.Context, sdk.DefaultStateRequest) (sdk.DefaultStateResponse, error) {
	return sdk.DefaultStateResponse{State: sdk.WalletState(`{}`)}, nil
}
func (fakeFixture) OnboardingState(context.Context, sdk.OnboardingStateRequest) (sdk.OnboardingStateResponse, error) {
	return sdk.OnboardingStateResponse{State: sdk.WalletState(`{}`)}, nil
}
func (fakeFixture) ResolvePreset(context.Context, sdk.ResolvePresetRequest) (sdk.ResolvePresetResponse, error) {
	return sdk.ResolvePresetResponse{State: sdk.WalletState(`{}`)}, nil
}

var (
	_ sdk.Chain        = fakeChain{}
	_ sdk.ToolProvider = fakeChain{}
	_ sdk.Fixture      = fakeFixture{}
)
