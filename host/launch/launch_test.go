package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// world holds in-memory fakes of every capability and records each call,
// in order, as "part.method".
type world struct {
	mu    sync.Mutex // the browser starts beside the chain and fixture
	calls []string
	// fixtureUp is closed when the fixture server starts: a failing
	// wallet.start waits for it, so that its rollback follows the whole
	// foreground in the call log, whichever way the two interleave.
	fixtureUp   chan struct{}
	fixtureOnce sync.Once
	fail        string // the call that fails, e.g. "chain.start"
	// beforeState, when set, runs as the wallet state is asked for;
	// onWalletStart as Chrome starts.
	beforeState   func()
	onWalletStart func(WalletStart)
	// fixturePort is where the fake fixture server says it serves
	// (12345 when 0).
	fixturePort int

	built     bool
	chainPort int
	chainID   int64

	hang   bool   // WaitForScreen never returns on its own
	screen string // the screen WaitForScreen reports; default "unlock"

	stateOpts   sdk.StateOptions
	chainOpts   sdk.ChainOptions
	fixtureOpts sdk.FixtureOptions
	unlocked    bool
	noPassword  bool
	unlockedBy  string         // the password Unlock got
	proxy       *browser.Proxy // what the browser was started with
	walletStart WalletStart
	chainState  json.RawMessage // the state the chain started with
	served      sdk.WalletState // the state the fixture served
}

var errFake = errors.New("fake failure")

func (w *world) call(name string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, name)
	if w.fail == name {
		return errFake
	}
	return nil
}

func (w *world) deps() Deps {
	return Deps{
		Builder: builder{w}, Chain: chain{w}, Fixture: fixture{w}, Contracts: seeder{w}, MockServer: mocks{w},
		StartWallet: func(ctx context.Context, ws WalletStart) (Wallet, error) {
			w.proxy, w.walletStart = ws.Proxy, ws
			if w.fail == "wallet.start" {
				select {
				case <-w.fixtureUp:
				case <-ctx.Done():
				}
			}
			if err := w.call("wallet.start"); err != nil {
				return nil, err
			}
			if w.onWalletStart != nil {
				w.onWalletStart(ws)
			}
			return wallet{w}, nil
		},
		Path: func(p string) string {
			if filepath.IsAbs(p) {
				return p
			}
			return filepath.Join("/ws", p)
		},
		Tool: func(b string) string { return "mm_" + b },
	}
}

type builder struct{ w *world }

func (b builder) Build(_ context.Context, _ sdk.BuildRequest, ev sdk.Events) (sdk.BuildResponse, error) {
	ev.Progress(1, 2, "building")
	return sdk.BuildResponse{BuildType: "build:test", ExtensionPath: "out/ext"}, b.w.call("build.build")
}
func (b builder) IsBuilt(context.Context, sdk.IsBuiltRequest) (sdk.IsBuiltResponse, error) {
	return sdk.IsBuiltResponse{Built: b.w.built}, b.w.call("build.isBuilt")
}
func (b builder) ExtensionPath(context.Context, sdk.ExtensionPathRequest) (sdk.ExtensionPathResponse, error) {
	return sdk.ExtensionPathResponse{Path: "out/ext"}, b.w.call("build.path")
}

// chain is the launch's chain lifecycle.
type chain struct{ w *world }

func (c chain) StartChain(_ context.Context, req sdk.StartChainRequest) (sdk.StartChainResponse, error) {
	c.w.chainOpts, c.w.chainState = req.ChainOptions, req.State
	return sdk.StartChainResponse{Status: sdk.ChainStatus{Running: true, Port: c.w.chainPort, ChainID: c.w.chainID,
		RPCURL: fmt.Sprintf("http://127.0.0.1:%d", c.w.chainPort)}}, c.w.call("chain.start")
}
func (c chain) StopChain(context.Context, sdk.StopChainRequest) (sdk.StopChainResponse, error) {
	return sdk.StopChainResponse{}, c.w.call("chain.stop")
}
func (c chain) ChainStatus(context.Context, sdk.ChainStatusRequest) (sdk.ChainStatusResponse, error) {
	return sdk.ChainStatusResponse{}, nil
}

type fixture struct{ w *world }

const vaultState = `{"data":{"KeyringController":{"vault":"{\"data\":\"x\"}"}},"meta":{"version":74}}`

func (f fixture) StartFixture(_ context.Context, req sdk.StartFixtureRequest) (sdk.StartFixtureResponse, error) {
	o := req.FixtureOptions
	f.w.fixtureOpts, f.w.served = o, req.State
	f.w.fixtureOnce.Do(func() { close(f.w.fixtureUp) })
	port := f.w.fixturePort
	if port == 0 {
		port = 12345
	}
	st := sdk.FixtureStatus{URL: fmt.Sprintf("http://localhost:%d/state.json", port), Port: port, UnlockPassword: fixturePassword}
	if f.w.noPassword {
		st.UnlockPassword = ""
	}
	if o.Origin != "" {
		st.OriginPort = 40001
	}
	return sdk.StartFixtureResponse{Status: st}, f.w.call("fixture.start")
}
func (f fixture) StopFixture(context.Context, sdk.StopFixtureRequest) (sdk.StopFixtureResponse, error) {
	return sdk.StopFixtureResponse{}, f.w.call("fixture.stop")
}
func (f fixture) Forget(context.Context, sdk.ForgetRequest) (sdk.ForgetResponse, error) {
	return sdk.ForgetResponse{}, f.w.call("fixture.forget")
}
func (f fixture) DefaultState(_ context.Context, req sdk.DefaultStateRequest) (sdk.DefaultStateResponse, error) {
	if f.w.beforeState != nil {
		f.w.beforeState()
	}
	f.w.stateOpts = req.StateOptions
	return sdk.DefaultStateResponse{State: json.RawMessage(vaultState)}, f.w.call("fixture.state")
}
func (f fixture) OnboardingState(_ context.Context, req sdk.OnboardingStateRequest) (sdk.OnboardingStateResponse, error) {
	f.w.stateOpts = req.StateOptions
	return sdk.OnboardingStateResponse{State: json.RawMessage(`{"data":{}}`)}, f.w.call("fixture.state")
}
func (f fixture) ResolvePreset(_ context.Context, req sdk.ResolvePresetRequest) (sdk.ResolvePresetResponse, error) {
	f.w.stateOpts = req.StateOptions
	return sdk.ResolvePresetResponse{State: json.RawMessage(vaultState)}, f.w.call("fixture.state")
}

type seeder struct{ w *world }

func (s seeder) Deploy(context.Context, sdk.DeployRequest) (sdk.DeployResponse, error) {
	return sdk.DeployResponse{}, nil
}
func (s seeder) DeployMany(_ context.Context, req sdk.DeployManyRequest) (sdk.DeployManyResponse, error) {
	var res sdk.DeployManyResponse
	for _, n := range req.Names {
		res.Deployed = append(res.Deployed, sdk.Deployment{ContractName: n, ContractAddress: "0x01"})
	}
	return res, s.w.call("contracts.deploy")
}
func (s seeder) Deployed(context.Context, sdk.DeployedRequest) (sdk.DeployedResponse, error) {
	return sdk.DeployedResponse{}, nil
}
func (s seeder) Available(context.Context, sdk.AvailableRequest) (sdk.AvailableResponse, error) {
	return sdk.AvailableResponse{}, nil
}
func (s seeder) Clear(context.Context, sdk.ClearRequest) (sdk.ClearResponse, error) {
	return sdk.ClearResponse{}, s.w.call("contracts.clear")
}

type mocks struct{ w *world }

func (m mocks) StartMockServer(context.Context, sdk.StartMockServerRequest) (sdk.StartMockServerResponse, error) {
	return sdk.StartMockServerResponse{Status: sdk.MockServerStatus{Running: true, Address: "127.0.0.1:40123", Port: 40123, SPKIHash: "c3BraQ=="}},
		m.w.call("mocks.start")
}
func (m mocks) StopMockServer(context.Context, sdk.StopMockServerRequest) (sdk.StopMockServerResponse, error) {
	return sdk.StopMockServerResponse{}, m.w.call("mocks.stop")
}
func (m mocks) MockServerStatus(context.Context, sdk.MockServerStatusRequest) (sdk.MockServerStatusResponse, error) {
	return sdk.MockServerStatusResponse{}, nil
}

type wallet struct{ w *world }

func (b wallet) ExtensionID() string { return "abcdefghijklmnopabcdefghijklmnop" }
func (b wallet) WaitForFirstScreen(ctx context.Context) (observation.State, error) {
	if b.w.hang {
		<-ctx.Done()
		return observation.State{CurrentScreen: "unknown"}, sdk.Errorf(sdk.CodeWaitTimeout, "did not settle")
	}
	screen := b.w.screen
	if screen == "" {
		screen = "unlock"
	}
	return observation.State{CurrentScreen: screen, IsUnlocked: b.w.unlocked}, b.w.call("wallet.wait")
}
func (b wallet) Unlock(_ context.Context, pw string) error {
	b.w.unlockedBy = pw
	return b.w.call("wallet.unlock")
}

// fixturePassword is the password the fake fixture gives for its vaults.
const fixturePassword = "the fixture's own password"

func (b wallet) Close(context.Context) error { return b.w.call("wallet.close") }
func (b wallet) Diagnose(context.Context, string) browser.Diagnosis {
	_ = b.w.call("wallet.diagnose")
	return browser.Diagnosis{LastScreen: "unknown", LastURL: "chrome-extension://x/home.html", ConsoleErrors: []string{"boom"}, Screenshot: "/a/s.png"}
}

func newWorld() *world {
	return &world{chainPort: 9545, chainID: 31337, fixtureUp: make(chan struct{})}
}

var fullInput = Input{SeedContracts: []string{"hst"}}

// The steps run in order: build, mock server, then the chain, contracts,
// wallet state (for the chain that runs) and fixture server in order,
// with Chrome starting beside them; then the first screen and the unlock.
func TestLaunchOrder(t *testing.T) {
	w := newWorld()
	var progress []float64
	p, err := Launch(context.Background(), w.deps(), fullInput, func(done, _ float64, _ string) { progress = append(progress, done) })
	if err != nil {
		t.Fatal(err)
	}
	// One notification as each step starts, the build's own in between,
	// strictly increasing (MCP requires it).
	if len(progress) != 8 {
		t.Fatalf("progress %v, want 7 steps and 1 build event", progress)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Fatalf("progress not increasing: %v", progress)
		}
	}
	main := []string{"build.path", "build.isBuilt", "build.build", "mocks.start", "chain.start", "contracts.clear", "contracts.deploy",
		"fixture.state", "fixture.start", "wallet.wait", "wallet.unlock"}
	var got []string
	for _, c := range w.calls {
		if c != "wallet.start" {
			got = append(got, c)
		}
	}
	if !reflect.DeepEqual(got, main) {
		t.Fatalf("calls\n got %v\nwant %v (and wallet.start)", w.calls, main)
	}
	if at := indexOf(w.calls, "wallet.start"); at < indexOf(w.calls, "mocks.start") || at > indexOf(w.calls, "wallet.wait") {
		t.Fatalf("Chrome started outside mocks..first screen: %v", w.calls)
	}
	var steps []string
	for _, pr := range p.Prerequisites {
		steps = append(steps, pr.Step)
	}
	if got := strings.Join(steps, ","); got != "build,mocks,chain,contracts,fixture,browser,unlock" {
		t.Fatalf("prerequisites %s", got)
	}
	if p.Extension != "/ws/out/ext" || p.Input.StateMode != "default" || p.Deployed["hst"] != "0x01" {
		t.Fatalf("parts %+v", p)
	}
	for _, s := range []string{"chain", "fixture", "browser", "extension", "unlock"} {
		if _, ok := p.Split[s]; !ok {
			t.Fatalf("split %v lacks %s", p.Split, s)
		}
	}
}

// TestLaunchStartsChromeBesideTheState: Chrome starts while the wallet
// state is still being built (a checkout's builder takes seconds), not
// after it; its fixed fixture URL reaches the session's gate, which holds
// the extension's request until the fixture server is up and then hands it
// the served state.
func TestLaunchStartsChromeBesideTheState(t *testing.T) {
	fx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"served":true}`) }))
	defer fx.Close()
	fxPort := fx.Listener.Addr().(*net.TCPAddr).Port
	w := newWorld()
	w.fixturePort = fxPort
	started := make(chan struct{})
	fetched := make(chan string, 1)
	w.onWalletStart = func(ws WalletStart) {
		close(started)
		// The extension asks for its state at once, at the mapped port.
		go func() {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/state.json", ws.Localhost.To))
			if err != nil {
				fetched <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			fetched <- string(b)
		}()
	}
	w.beforeState = func() {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Error("the wallet state was asked for before Chrome started: the steps ran one after the other")
		}
	}
	p, err := Launch(context.Background(), w.deps(), Input{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer Teardown(w.deps(), p)
	select {
	case got := <-fetched:
		if got != `{"served":true}` {
			t.Fatalf("the extension's request got %q, want the fixture server's state", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the extension's request for its state never got an answer")
	}
}

// A failure at any step undoes exactly what was started, in reverse
// order, and names the step.
func TestLaunchRollback(t *testing.T) {
	for _, tc := range []struct {
		fail, step string
		undo       []string
	}{
		{"build.build", "build", nil},
		{"mocks.start", "mocks", nil},
		{"chain.start", "chain", []string{"wallet.close", "mocks.stop"}},
		{"contracts.clear", "contracts", []string{"wallet.close", "mocks.stop", "chain.stop"}},
		{"contracts.deploy", "contracts", []string{"wallet.close", "mocks.stop", "contracts.clear", "chain.stop"}},
		{"fixture.state", "fixture", []string{"wallet.close", "mocks.stop", "contracts.clear", "chain.stop"}},
		{"fixture.start", "fixture", []string{"wallet.close", "mocks.stop", "contracts.clear", "chain.stop"}},
		{"wallet.start", "browser", []string{"mocks.stop", "fixture.stop", "contracts.clear", "chain.stop"}},
		{"wallet.wait", "extension", []string{"wallet.diagnose", "wallet.close", "mocks.stop", "fixture.stop", "contracts.clear", "chain.stop"}},
		{"wallet.unlock", "unlock", []string{"wallet.diagnose", "wallet.close", "mocks.stop", "fixture.stop", "contracts.clear", "chain.stop"}},
	} {
		t.Run(tc.fail, func(t *testing.T) {
			w := newWorld()
			w.fail = tc.fail
			p, err := Launch(context.Background(), w.deps(), fullInput, nil)
			if err == nil || p != nil {
				t.Fatalf("launch succeeded: %+v", p)
			}
			e := sdk.AsError(err)
			if e.Code != sdk.CodeLaunchFailed || e.Details["step"] != tc.step {
				t.Fatalf("error %s %v, want MM_LAUNCH_FAILED at %s", e.Code, e.Details, tc.step)
			}
			// What was undone after the failure (Chrome, started
			// beside the chain, may start after it).
			var got []string
			for _, c := range w.calls[indexOf(w.calls, tc.fail)+1:] {
				if !strings.HasSuffix(c, ".start") {
					got = append(got, c)
				}
			}
			if !reflect.DeepEqual(nonNil(got), nonNil(tc.undo)) {
				t.Fatalf("after %s: %v, want %v", tc.fail, w.calls, tc.undo)
			}
		})
	}
}

// With a mock server Chrome starts through it: its address as the proxy,
// loopback direct, its CA trusted by SPKI hash; teardown stops it after
// the browser. Without one Chrome starts with no proxy.
func TestLaunchMockServer(t *testing.T) {
	w := newWorld()
	p, err := Launch(context.Background(), w.deps(), Input{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := browser.Proxy{Server: "http://127.0.0.1:40123", Bypass: "localhost;127.0.0.1;[::1]", SPKI: "c3BraQ=="}
	if w.proxy == nil || *w.proxy != want {
		t.Fatalf("proxy %+v, want %+v", w.proxy, want)
	}
	if p.MockServer == nil || p.MockServer.Port != 40123 {
		t.Fatalf("parts.MockServer %+v", p.MockServer)
	}
	w.calls = nil
	Teardown(w.deps(), p)
	if want := []string{"wallet.close", "mocks.stop", "fixture.stop", "chain.stop"}; !reflect.DeepEqual(w.calls, want) {
		t.Fatalf("teardown %v, want %v", w.calls, want)
	}

	w = newWorld()
	d := w.deps()
	d.MockServer = nil
	if _, err := Launch(context.Background(), d, Input{}, nil); err != nil {
		t.Fatal(err)
	}
	if w.proxy != nil || indexOf(w.calls, "mocks.start") >= 0 {
		t.Fatalf("no mock server, yet proxy %+v, calls %v", w.proxy, w.calls)
	}
}

// The host passes zero values: the chain plugin picks the port and chain
// id, and the wallet state is built for those.
func TestLaunchSettingsFlow(t *testing.T) {
	w := newWorld()
	if _, err := Launch(context.Background(), w.deps(), Input{}, nil); err != nil {
		t.Fatal(err)
	}
	if w.chainOpts.Port != 0 || w.fixtureOpts.Port != 0 {
		t.Fatalf("launch filled ports itself: chain %+v fixture %+v", w.chainOpts, w.fixtureOpts)
	}
	if w.stateOpts != (sdk.StateOptions{AnvilPort: 9545, ChainID: 31337}) {
		t.Fatalf("state built for %+v, want the chain's port 9545 and chain id 31337", w.stateOpts)
	}
	w = newWorld()
	in := Input{}
	in.Ports.Anvil, in.Ports.FixtureServer = 8600, 12400
	if _, err := Launch(context.Background(), w.deps(), in, nil); err != nil {
		t.Fatal(err)
	}
	if w.chainOpts.Port != 8600 || w.fixtureOpts.Port != 12400 {
		t.Fatalf("ports not passed: chain %+v fixture %+v", w.chainOpts, w.fixtureOpts)
	}
}

// The build plugin says where the build is and whether it exists.
func TestLaunchExtensionFromBuilder(t *testing.T) {
	no := false
	w := newWorld()
	w.built = true
	p, err := Launch(context.Background(), w.deps(), Input{AutoBuild: &no}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Extension != "/ws/out/ext" || indexOf(w.calls, "build.build") >= 0 {
		t.Fatalf("extension %s, calls %v", p.Extension, w.calls)
	}

	w = newWorld()
	_, err = Launch(context.Background(), w.deps(), Input{AutoBuild: &no}, nil)
	e := sdk.AsError(err)
	if e.Code != sdk.CodeLaunchFailed || e.Details["step"] != "build" || !strings.Contains(e.Message, "/ws/out/ext") {
		t.Fatalf("unbuilt with autoBuild false: %v %v", e, e.Details)
	}
	if indexOf(w.calls, "chain.start") >= 0 {
		t.Fatalf("started a chain without an extension: %v", w.calls)
	}

	// No build plugin: the workspace's dist/chrome.
	d := newWorld().deps()
	d.Builder = nil
	_, err = Launch(context.Background(), d, Input{}, nil)
	if e := sdk.AsError(err); e.Code != sdk.CodeLaunchFailed || !strings.Contains(e.Message, "/ws/dist/chrome") {
		t.Fatalf("no build plugin, no extensionPath: %v", e)
	}
}

// A default state without a vault (or an unlocked wallet) is not unlocked.
func TestLaunchUnlockOnlyWhenLocked(t *testing.T) {
	w := newWorld()
	w.unlocked = true
	if _, err := Launch(context.Background(), w.deps(), Input{}, nil); err != nil {
		t.Fatal(err)
	}
	if indexOf(w.calls, "wallet.unlock") >= 0 {
		t.Fatalf("unlocked an unlocked wallet: %v", w.calls)
	}
	w = newWorld()
	if _, err := Launch(context.Background(), w.deps(), Input{StateMode: "onboarding"}, nil); err != nil {
		t.Fatal(err)
	}
	if indexOf(w.calls, "wallet.unlock") >= 0 {
		t.Fatalf("unlocked an onboarding wallet: %v", w.calls)
	}
}

// Any state with a vault that comes up locked is unlocked with the default
// password: a preset's and a custom fixture's too. When a custom vault does
// not open, the launch answers ok with a wallet_locked warning; the
// default state's vault not opening fails the launch.
func TestLaunchUnlocksEveryVault(t *testing.T) {
	custom := Input{StateMode: "custom", Fixture: json.RawMessage(vaultState)}
	for _, in := range []Input{{StateMode: "custom", FixturePreset: "withERC20Tokens"}, custom} {
		w := newWorld()
		p, err := Launch(context.Background(), w.deps(), in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if indexOf(w.calls, "wallet.unlock") < 0 || len(p.Warnings) != 0 {
			t.Fatalf("%+v: calls %v, warnings %v", in, w.calls, p.Warnings)
		}
	}

	w := newWorld()
	w.fail = "wallet.unlock"
	p, err := Launch(context.Background(), w.deps(), custom, nil)
	if err != nil {
		t.Fatalf("a custom vault that does not open failed the launch: %v", err)
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Code != WarnWalletLocked || p.Warnings[0].Step != "unlock" ||
		!strings.Contains(p.Warnings[0].Message, "did not open with the fixture plugin's password") || !strings.Contains(p.Warnings[0].Message, "mm_type") {
		t.Fatalf("warnings %+v", p.Warnings)
	}
	if indexOf(w.calls, "wallet.close") >= 0 {
		t.Fatalf("the locked wallet was torn down: %v", w.calls)
	}

	w = newWorld()
	w.fail = "wallet.unlock"
	_, err = Launch(context.Background(), w.deps(), Input{}, nil)
	if e := sdk.AsError(err); e.Code != sdk.CodeLaunchFailed || e.Details["step"] != "unlock" {
		t.Fatalf("default state that does not unlock: %v", e)
	}
}

// A prod-mode launch refuses, before starting anything, each argument only
// the e2e mode has, with MM_NOT_IN_MODE naming it and the way back; a
// plain prod launch (no chain, fixture, contracts or mocks given) starts
// the extension as installed and never unlocks.
func TestLaunchProdMode(t *testing.T) {
	for field, in := range map[string]Input{
		"seedContracts":       {SeedContracts: []string{"hst"}},
		"fixturePreset":       {FixturePreset: "withNFTs"},
		"fixture":             {StateMode: "custom", Fixture: json.RawMessage(`{}`)},
		"stateMode":           {StateMode: "custom"},
		"ports.anvil":         func() Input { var i Input; i.Ports.Anvil = 8545; return i }(),
		"ports.fixtureServer": func() Input { var i Input; i.Ports.FixtureServer = 12345; return i }(),
	} {
		w := newWorld()
		d := w.deps()
		d.Prod = true
		_, err := Launch(context.Background(), d, in, nil)
		e := sdk.AsError(err)
		if e.Code != sdk.CodeNotInMode || e.Details["field"] != field || !strings.Contains(e.Message, "mm_set_context") {
			t.Fatalf("%s: %s %q %v", field, e.Code, e.Message, e.Details)
		}
		if len(w.calls) != 0 {
			t.Fatalf("%s: started %v", field, w.calls)
		}
	}

	w := newWorld()
	d := w.deps()
	d.Prod, d.Chain, d.Fixture, d.Contracts, d.MockServer = true, nil, nil, nil, nil
	w.built = true
	p, err := Launch(context.Background(), d, Input{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"build.path", "build.isBuilt", "wallet.start", "wallet.wait"}; !reflect.DeepEqual(w.calls, want) {
		t.Fatalf("calls %v, want %v", w.calls, want)
	}
	if p.Chain != nil || p.Fixture != nil || len(p.Prerequisites) == 0 || p.Prerequisites[0].Step != "mode" {
		t.Fatalf("parts %+v", p)
	}
}

func TestLaunchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := newWorld()
	_, err := Launch(ctx, w.deps(), Input{}, nil)
	if e := sdk.AsError(err); e.Code != sdk.CodeCancelled {
		t.Fatalf("cancelled launch: %v", e)
	}
	if len(w.calls) != 0 {
		t.Fatalf("calls after cancel: %v", w.calls)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// A wallet that never settles fails the launch after SettleTimeout (not
// the call's deadline) with the diagnosis; so does its error page.
func TestLaunchWalletNeverSettles(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*world)
		want string
	}{
		{"spinner", func(w *world) { w.hang = true }, "did not reach a recognized screen within 50ms"},
		{"error page", func(w *world) { w.screen = "error" }, "shows its error page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			tc.set(w)
			d := w.deps()
			d.SettleTimeout = 50 * time.Millisecond
			_, err := Launch(context.Background(), d, Input{}, nil)
			e := sdk.AsError(err)
			if e.Code != sdk.CodeLaunchFailed || e.Details["step"] != "extension" || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("error %s %q %v", e.Code, e.Message, e.Details)
			}
			if e.Details["screenshot"] != "/a/s.png" || !reflect.DeepEqual(e.Details["consoleErrors"], []string{"boom"}) || e.Details["lastUrl"] == "" {
				t.Fatalf("no diagnosis in details: %v", e.Details)
			}
			if indexOf(w.calls, "chain.stop") < 0 {
				t.Fatalf("not torn down: %v", w.calls)
			}
		})
	}
}

// TestLaunchBesideOtherSessions: a session launched beside others gets its
// chain on a free port, its wallet state under its own name, and a Chrome
// that reaches that state's own port at the fixed fixture URL; its
// teardown drops only its state.
func TestLaunchBesideOtherSessions(t *testing.T) {
	w := newWorld()
	w.chainPort, w.chainID, w.built = 40123, 1337, true
	d := w.deps()
	d.FreePort, d.FixtureOrigin = true, "mmcp-session://mm-b"
	p, err := Launch(context.Background(), d, Input{StateMode: "default"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !w.chainOpts.FreePort || w.fixtureOpts.Origin != "mmcp-session://mm-b" {
		t.Fatalf("chain options %+v, fixture options %+v", w.chainOpts, w.fixtureOpts)
	}
	if got := w.walletStart.Localhost; got == nil || got.From != 12345 || p.gate == nil || got.To != p.gate.Port() || p.gate.target != 40001 {
		t.Fatalf("Chrome's localhost port map %v, want 12345 to the session's gate, which forwards to its state's port 40001", got)
	}
	w.calls = nil
	Teardown(d, p)
	if strings.Contains(strings.Join(w.calls, " "), "fixture.stop") || !strings.Contains(strings.Join(w.calls, " "), "fixture.forget") {
		t.Fatalf("teardown calls %v: want the session's state forgotten, the server left to the others", w.calls)
	}
}

// TestLaunchUnlocksWithTheFixturesPassword: the wallet is unlocked with the
// password the fixture plugin gave for the vault it built; a fixture that
// gives none fails the default state's launch (mmcp's own state must come
// up unlocked) and leaves a preset's wallet locked with a warning.
func TestLaunchUnlocksWithTheFixturesPassword(t *testing.T) {
	w := newWorld()
	if _, err := Launch(context.Background(), w.deps(), Input{}, nil); err != nil {
		t.Fatal(err)
	}
	if w.unlockedBy != fixturePassword {
		t.Fatalf("unlocked with %q, want the fixture's password", w.unlockedBy)
	}

	w = newWorld()
	w.noPassword = true
	_, err := Launch(context.Background(), w.deps(), Input{}, nil)
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeLaunchFailed || !strings.Contains(e.Message, "gave no password") {
		t.Fatalf("default state, no password: %v", err)
	}

	w = newWorld()
	w.noPassword = true
	p, err := Launch(context.Background(), w.deps(), Input{FixturePreset: "withERC20Tokens"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Code != WarnWalletLocked || !strings.Contains(p.Warnings[0].Message, "gave no password") || slices.Contains(w.calls, "wallet.unlock") {
		t.Fatalf("preset, no password: warnings %+v, calls %v", p.Warnings, w.calls)
	}
}
