package plugintest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
	"github.com/mmcp-dev/mmcp/sdk/plugintest"
)

// TestEveryRPCRoundTrips sends a request with every field set through the
// host's client, the wire and the plugin's server to a plugin that
// implements every capability, and checks that the plugin got exactly that
// request and the host exactly the plugin's response; then the same call
// failing, which must reach the host as the plugin's *sdk.Error. The RPCs
// come from the protocol's service descriptors, so an RPC added without a
// round trip here fails the test, and so does a field a conversion drops.
func TestEveryRPCRoundTrips(t *testing.T) {
	trips := roundTrips()
	rpcs := protocolRPCs()
	for _, rpc := range rpcs {
		if _, ok := trips[rpc]; !ok {
			t.Errorf("RPC %s has no round trip in this test", rpc)
		}
	}
	for name := range trips {
		if !contains(rpcs, name) {
			t.Errorf("round trip %s is no RPC of the protocol", name)
		}
	}
	for _, rpc := range rpcs {
		trip, ok := trips[rpc]
		if !ok {
			continue
		}
		t.Run(rpc, func(t *testing.T) {
			checkAllSet(t, "request", reflect.ValueOf(trip.req))
			checkAllSet(t, "response", reflect.ValueOf(trip.resp))
			f := &everything{got: map[string]any{}, resp: map[string]any{rpc: trip.resp}}
			c := plugintest.Serve(t, f)
			ev := &recorder{}
			got, err := trip.call(context.Background(), c, ev)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if !reflect.DeepEqual(f.got[rpc], trip.req) {
				t.Errorf("the plugin got\n%s\nwant\n%s", show(f.got[rpc]), show(trip.req))
			}
			if !reflect.DeepEqual(got, trip.resp) {
				t.Errorf("the host got\n%s\nwant\n%s", show(got), show(trip.resp))
			}
			if trip.streams && (len(ev.progress) != 1 || len(ev.logs) != 1) {
				t.Errorf("events: progress %v, logs %v; want one of each", ev.progress, ev.logs)
			}
			if trip.noError {
				return
			}
			f.fail = true
			_, err = trip.call(context.Background(), c, ev)
			var de *sdk.Error
			if !errors.As(err, &de) || de.Code != sdk.CodePortInUse || de.Message != rpc+" failed" || de.Details["rpc"] != rpc {
				t.Errorf("failing call answered %#v, want the plugin's %s error", err, sdk.CodePortInUse)
			}
		})
	}
}

// roundTrip is one RPC's round trip: a request and a response with every
// field set, and the host-side call that sends the request.
type roundTrip struct {
	req, resp any
	call      func(ctx context.Context, c *pluginhost.Conn, ev sdk.Events) (any, error)
	streams   bool // the RPC streams events
	noError   bool // the RPC has no domain error
}

// trip makes a roundTrip of a typed call.
func trip[Req, Resp any](req Req, resp Resp, call func(context.Context, *pluginhost.Conn, Req, sdk.Events) (Resp, error)) roundTrip {
	return roundTrip{req: req, resp: resp, call: func(ctx context.Context, c *pluginhost.Conn, ev sdk.Events) (any, error) {
		return call(ctx, c, req, ev)
	}}
}

func streaming(r roundTrip) roundTrip { r.streams = true; return r }

// protocolRPCs lists every RPC of the protocol as "Service/Method".
func protocolRPCs() []string {
	var out []string
	for _, fd := range []protoreflect.FileDescriptor{pb.File_mmcp_v1_plugin_proto, pb.File_mmcp_v1_tools_proto, pb.File_mmcp_v1_capabilities_proto} {
		for i := 0; i < fd.Services().Len(); i++ {
			s := fd.Services().Get(i)
			for j := 0; j < s.Methods().Len(); j++ {
				out = append(out, fmt.Sprintf("%s/%s", s.Name(), s.Methods().Get(j).Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

func roundTrips() map[string]roundTrip {
	chainStatus := sdk.ChainStatus{Running: true, RPCURL: "http://127.0.0.1:8545", Port: 8545, ChainID: 1337, BlockNumber: 7, External: true}
	deployOpts := sdk.DeployOptions{Hardfork: "prague", DeployerOptions: sdk.DeployerOptions{FromAddress: "0xabc", FromPrivateKey: "0xkey"}}
	deployment := sdk.Deployment{ContractName: "hst", ContractAddress: "0x1", DeployedAt: "2026-01-01T00:00:00Z", TxHash: "0x2", BlockNumber: 3, Deployer: "0x4", ABI: `[{"type":"function","name":"transfer"}]`}
	rebuild := sdk.Rebuild{Seq: 2, DurationMs: 300, FinishedAt: "2026-01-01T00:00:00Z", By: "pattern", BuildID: "abcd", Warnings: []string{"a FIFO"}}
	watch := sdk.WatchStatus{Running: true, State: sdk.WatchReady, Command: "yarn start:test", Pid: 42, ExtensionPath: "/ext", Rebuilds: 2, Last: &rebuild, Error: "old failure"}
	stateOpts := sdk.StateOptions{AnvilPort: 8546, ChainID: 1338}
	state := sdk.WalletState(`{"data":{"a":1},"meta":{"version":74}}`)
	page := sdk.PageSnapshot{URL: "chrome-extension://x/home.html#/", Role: "extension",
		Elements: map[string]sdk.ElementProbe{"pw": {Present: true, Text: "Password"}}, AppState: json.RawMessage(`{"b":2}`)}
	yes, addr, net, chain, bal, msg := true, "0x5", "Localhost 8545", int64(1337), "25 ETH", "oops"
	mock := sdk.MockServerStatus{Running: true, Address: "127.0.0.1:40123", Port: 40123, SPKIHash: "q83vEjRWeJA="}

	return map[string]roundTrip{
		"Plugin/Describe": {req: struct{}{}, resp: describeWant(), noError: true,
			call: func(ctx context.Context, c *pluginhost.Conn, _ sdk.Events) (any, error) { return c.Describe(ctx) }},
		"Plugin/Configure": trip(sdk.Config{Workspace: "/w", ArtifactsDir: "/a", LogLevel: "debug", Settings: json.RawMessage(`{"port":1}`)}, struct{}{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.Config, _ sdk.Events) (struct{}, error) {
				return struct{}{}, c.Configure(ctx, r)
			}),
		"Plugin/Stop": trip(struct{}{}, struct{}{},
			func(ctx context.Context, c *pluginhost.Conn, _ struct{}, _ sdk.Events) (struct{}, error) {
				return struct{}{}, c.Stop(ctx)
			}),
		"Tools/CallTool": streaming(trip(sdk.CallToolRequest{Name: "greet", Arguments: json.RawMessage(`{"name":"ann"}`)},
			sdk.CallToolResponse{Result: map[string]any{"greeting": "hello"}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.CallToolRequest, ev sdk.Events) (sdk.CallToolResponse, error) {
				raw, err := c.CallTool(ctx, r.Name, r.Arguments, ev)
				if err != nil {
					return sdk.CallToolResponse{}, err
				}
				var v any
				err = json.Unmarshal(raw, &v)
				return sdk.CallToolResponse{Result: v}, err
			})),

		"Build/Build": streaming(trip(sdk.BuildRequest{BuildType: "test", Force: true},
			sdk.BuildResponse{BuildType: "test", ExtensionPath: "/ext", DurationMs: 1200, Skipped: true},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.BuildRequest, ev sdk.Events) (sdk.BuildResponse, error) {
				return c.Builder().Build(ctx, r, ev)
			})),
		"Build/IsBuilt": trip(sdk.IsBuiltRequest{}, sdk.IsBuiltResponse{Built: true},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.IsBuiltRequest, _ sdk.Events) (sdk.IsBuiltResponse, error) {
				return c.Builder().IsBuilt(ctx, r)
			}),
		"Build/ExtensionPath": trip(sdk.ExtensionPathRequest{}, sdk.ExtensionPathResponse{Path: "/ext"},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.ExtensionPathRequest, _ sdk.Events) (sdk.ExtensionPathResponse, error) {
				return c.Builder().ExtensionPath(ctx, r)
			}),
		"Build/StartWatch": trip(sdk.StartWatchRequest{}, sdk.StartWatchResponse{Status: watch},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StartWatchRequest, _ sdk.Events) (sdk.StartWatchResponse, error) {
				return c.Watcher().StartWatch(ctx, r)
			}),
		"Build/WaitReady": streaming(trip(sdk.WaitReadyRequest{TimeoutMs: 5000}, sdk.WaitReadyResponse{Rebuild: rebuild},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.WaitReadyRequest, ev sdk.Events) (sdk.WaitReadyResponse, error) {
				return c.Watcher().WaitReady(ctx, r, ev)
			})),
		"Build/StopWatch": trip(sdk.StopWatchRequest{}, sdk.StopWatchResponse{Status: watch},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StopWatchRequest, _ sdk.Events) (sdk.StopWatchResponse, error) {
				return c.Watcher().StopWatch(ctx, r)
			}),

		"Chain/Start": trip(sdk.StartChainRequest{ChainOptions: sdk.ChainOptions{Port: 8546, ChainID: 1338, Mnemonic: "m", Balance: 30,
			Hardfork: "cancun", BlockTime: 2, RPCURL: "http://node", FreePort: true}, State: json.RawMessage(`"0x1f8b"`)}, sdk.StartChainResponse{Status: chainStatus},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StartChainRequest, _ sdk.Events) (sdk.StartChainResponse, error) {
				return c.Chain().StartChain(ctx, r)
			}),
		"Chain/Stop": trip(sdk.StopChainRequest{}, sdk.StopChainResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StopChainRequest, _ sdk.Events) (sdk.StopChainResponse, error) {
				return c.Chain().StopChain(ctx, r)
			}),
		"Chain/Status": trip(sdk.ChainStatusRequest{}, sdk.ChainStatusResponse{Status: chainStatus},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.ChainStatusRequest, _ sdk.Events) (sdk.ChainStatusResponse, error) {
				return c.Chain().ChainStatus(ctx, r)
			}),
		"Chain/Snapshot": trip(sdk.SnapshotRequest{}, sdk.SnapshotResponse{ID: "0x1"},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.SnapshotRequest, _ sdk.Events) (sdk.SnapshotResponse, error) {
				return c.Chain().Snapshot(ctx, r)
			}),
		"Chain/Revert": trip(sdk.RevertRequest{ID: "0x1"}, sdk.RevertResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.RevertRequest, _ sdk.Events) (sdk.RevertResponse, error) {
				return c.Chain().Revert(ctx, r)
			}),
		"Chain/SetBalance": trip(sdk.SetBalanceRequest{Address: "0x5", Wei: "0x10"}, sdk.SetBalanceResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.SetBalanceRequest, _ sdk.Events) (sdk.SetBalanceResponse, error) {
				return c.Chain().SetBalance(ctx, r)
			}),
		"Chain/Mine": trip(sdk.MineRequest{Blocks: 3}, sdk.MineResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.MineRequest, _ sdk.Events) (sdk.MineResponse, error) {
				return c.Chain().Mine(ctx, r)
			}),

		"ContractSeeding/Deploy": trip(sdk.DeployRequest{RPCURL: "http://node", Name: "hst", Options: deployOpts}, sdk.DeployResponse{Deployment: deployment},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.DeployRequest, _ sdk.Events) (sdk.DeployResponse, error) {
				return c.ContractSeeder().Deploy(ctx, r)
			}),
		"ContractSeeding/DeployMany": trip(sdk.DeployManyRequest{RPCURL: "http://node", Names: []string{"hst", "nfts"}, Options: deployOpts},
			sdk.DeployManyResponse{Deployed: []sdk.Deployment{deployment}, Failed: []sdk.DeployFailure{{ContractName: "nfts", Error: "reverted"}}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.DeployManyRequest, _ sdk.Events) (sdk.DeployManyResponse, error) {
				return c.ContractSeeder().DeployMany(ctx, r)
			}),
		"ContractSeeding/Deployed": trip(sdk.DeployedRequest{}, sdk.DeployedResponse{Deployments: []sdk.Deployment{deployment}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.DeployedRequest, _ sdk.Events) (sdk.DeployedResponse, error) {
				return c.ContractSeeder().Deployed(ctx, r)
			}),
		"ContractSeeding/Available": trip(sdk.AvailableRequest{}, sdk.AvailableResponse{Names: []string{"hst", "nfts"}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.AvailableRequest, _ sdk.Events) (sdk.AvailableResponse, error) {
				return c.ContractSeeder().Available(ctx, r)
			}),
		"ContractSeeding/Clear": trip(sdk.ClearRequest{}, sdk.ClearResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.ClearRequest, _ sdk.Events) (sdk.ClearResponse, error) {
				return c.ContractSeeder().Clear(ctx, r)
			}),

		"Fixture/Start": trip(sdk.StartFixtureRequest{State: state, FixtureOptions: sdk.FixtureOptions{Port: 12346,
			Contracts: map[string]string{"hst": "0x1"}, Origin: "chrome-extension://x"}},
			sdk.StartFixtureResponse{Status: sdk.FixtureStatus{URL: "http://127.0.0.1:12346", Port: 12346, OriginPort: 40000, UnlockPassword: "pw"}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StartFixtureRequest, _ sdk.Events) (sdk.StartFixtureResponse, error) {
				return c.Fixture().StartFixture(ctx, r)
			}),
		"Fixture/Stop": trip(sdk.StopFixtureRequest{}, sdk.StopFixtureResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StopFixtureRequest, _ sdk.Events) (sdk.StopFixtureResponse, error) {
				return c.Fixture().StopFixture(ctx, r)
			}),
		"Fixture/Forget": trip(sdk.ForgetRequest{Origin: "chrome-extension://x"}, sdk.ForgetResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.ForgetRequest, _ sdk.Events) (sdk.ForgetResponse, error) {
				return c.Fixture().Forget(ctx, r)
			}),
		"Fixture/DefaultState": trip(sdk.DefaultStateRequest{StateOptions: stateOpts}, sdk.DefaultStateResponse{State: state},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.DefaultStateRequest, _ sdk.Events) (sdk.DefaultStateResponse, error) {
				return c.Fixture().DefaultState(ctx, r)
			}),
		"Fixture/OnboardingState": trip(sdk.OnboardingStateRequest{StateOptions: stateOpts}, sdk.OnboardingStateResponse{State: state},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.OnboardingStateRequest, _ sdk.Events) (sdk.OnboardingStateResponse, error) {
				return c.Fixture().OnboardingState(ctx, r)
			}),
		"Fixture/ResolvePreset": trip(sdk.ResolvePresetRequest{Name: "withTokens", StateOptions: stateOpts}, sdk.ResolvePresetResponse{State: state},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.ResolvePresetRequest, _ sdk.Events) (sdk.ResolvePresetResponse, error) {
				return c.Fixture().ResolvePreset(ctx, r)
			}),

		"StateSnapshot/Probe": trip(sdk.ProbeRequest{}, sdk.ProbeResponse{Probe: sdk.StateProbe{Elements: map[string]string{"pw": "#pw"}, Script: "window.x"}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.ProbeRequest, _ sdk.Events) (sdk.ProbeResponse, error) {
				return c.StateSnapshot().Probe(ctx, r)
			}),
		"StateSnapshot/DetectScreen": trip(sdk.DetectScreenRequest{Page: page}, sdk.DetectScreenResponse{Screen: "login"},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.DetectScreenRequest, _ sdk.Events) (sdk.DetectScreenResponse, error) {
				return c.StateSnapshot().DetectScreen(ctx, r)
			}),
		"StateSnapshot/State": trip(sdk.StateRequest{Page: page, SnapshotOptions: sdk.SnapshotOptions{ExtensionID: "x", ChainID: 1337}},
			sdk.StateResponse{Status: sdk.WalletStatus{IsUnlocked: &yes, AccountAddress: &addr, NetworkName: &net, ChainID: &chain, Balance: &bal, ErrorMessage: &msg}},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StateRequest, _ sdk.Events) (sdk.StateResponse, error) {
				return c.StateSnapshot().State(ctx, r)
			}),

		"MockServer/Start": trip(sdk.StartMockServerRequest{MockServerOptions: sdk.MockServerOptions{Port: 40123}}, sdk.StartMockServerResponse{Status: mock},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StartMockServerRequest, _ sdk.Events) (sdk.StartMockServerResponse, error) {
				return c.MockServer().StartMockServer(ctx, r)
			}),
		"MockServer/Stop": trip(sdk.StopMockServerRequest{}, sdk.StopMockServerResponse{},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.StopMockServerRequest, _ sdk.Events) (sdk.StopMockServerResponse, error) {
				return c.MockServer().StopMockServer(ctx, r)
			}),
		"MockServer/Status": trip(sdk.MockServerStatusRequest{}, sdk.MockServerStatusResponse{Status: mock},
			func(ctx context.Context, c *pluginhost.Conn, r sdk.MockServerStatusRequest, _ sdk.Events) (sdk.MockServerStatusResponse, error) {
				return c.MockServer().MockServerStatus(ctx, r)
			}),
	}
}

var everyTool = sdk.Tool{Name: "greet", Description: "Greets.", InputSchema: json.RawMessage(`{"type":"object"}`)}

// describeWant is what Describe of everything answers.
func describeWant() pluginhost.Description {
	return pluginhost.Description{Info: sdk.Info{Name: "everything", Version: "1.0.0"}, APIVersion: sdk.APIVersion,
		Capabilities: []sdk.Capability{sdk.CapBuild, sdk.CapBuildWatch, sdk.CapChain, sdk.CapFixture, sdk.CapContractSeeding,
			sdk.CapStateSnapshot, sdk.CapMockServer, sdk.CapTools},
		Tools: []sdk.Tool{everyTool}}
}

// everything is a plugin with every capability in one type. Each method
// records its request under its RPC's name and answers the response set
// for that RPC, or, when fail is set, a domain error.
type everything struct {
	got  map[string]any
	resp map[string]any
	fail bool
}

func answer[Resp any](f *everything, rpc string, req any, ev sdk.Events) (Resp, error) {
	f.got[rpc] = req
	if ev != nil {
		ev.Progress(1, 2, "half way")
		ev.Log("info", "a line")
	}
	var zero Resp
	if f.fail {
		return zero, sdk.Errorf(sdk.CodePortInUse, "%s failed", rpc).WithDetails(map[string]any{"rpc": rpc})
	}
	r, ok := f.resp[rpc].(Resp)
	if !ok {
		return zero, fmt.Errorf("no response set for %s", rpc)
	}
	return r, nil
}

func (f *everything) Info() sdk.Info {
	f.got["Plugin/Describe"] = struct{}{}
	return sdk.Info{Name: "everything", Version: "1.0.0"}
}

func (f *everything) Configure(_ context.Context, cfg sdk.Config) error {
	_, err := answer[struct{}](f, "Plugin/Configure", cfg, nil)
	return err
}

func (f *everything) Stop(context.Context) error {
	if f.resp["Plugin/Stop"] == nil {
		return nil // plugintest's own stop at the end of another RPC's test
	}
	_, err := answer[struct{}](f, "Plugin/Stop", struct{}{}, nil)
	return err
}

func (f *everything) Tools() []sdk.Tool { return []sdk.Tool{everyTool} }

func (f *everything) CallTool(_ context.Context, req sdk.CallToolRequest, ev sdk.Events) (sdk.CallToolResponse, error) {
	return answer[sdk.CallToolResponse](f, "Tools/CallTool", req, ev)
}

func (f *everything) Build(_ context.Context, req sdk.BuildRequest, ev sdk.Events) (sdk.BuildResponse, error) {
	return answer[sdk.BuildResponse](f, "Build/Build", req, ev)
}

func (f *everything) IsBuilt(_ context.Context, req sdk.IsBuiltRequest) (sdk.IsBuiltResponse, error) {
	return answer[sdk.IsBuiltResponse](f, "Build/IsBuilt", req, nil)
}

func (f *everything) ExtensionPath(_ context.Context, req sdk.ExtensionPathRequest) (sdk.ExtensionPathResponse, error) {
	return answer[sdk.ExtensionPathResponse](f, "Build/ExtensionPath", req, nil)
}

func (f *everything) StartWatch(_ context.Context, req sdk.StartWatchRequest) (sdk.StartWatchResponse, error) {
	return answer[sdk.StartWatchResponse](f, "Build/StartWatch", req, nil)
}

func (f *everything) WaitReady(_ context.Context, req sdk.WaitReadyRequest, ev sdk.Events) (sdk.WaitReadyResponse, error) {
	return answer[sdk.WaitReadyResponse](f, "Build/WaitReady", req, ev)
}

func (f *everything) StopWatch(_ context.Context, req sdk.StopWatchRequest) (sdk.StopWatchResponse, error) {
	return answer[sdk.StopWatchResponse](f, "Build/StopWatch", req, nil)
}

func (f *everything) StartChain(_ context.Context, req sdk.StartChainRequest) (sdk.StartChainResponse, error) {
	return answer[sdk.StartChainResponse](f, "Chain/Start", req, nil)
}

func (f *everything) StopChain(_ context.Context, req sdk.StopChainRequest) (sdk.StopChainResponse, error) {
	return answer[sdk.StopChainResponse](f, "Chain/Stop", req, nil)
}

func (f *everything) ChainStatus(_ context.Context, req sdk.ChainStatusRequest) (sdk.ChainStatusResponse, error) {
	return answer[sdk.ChainStatusResponse](f, "Chain/Status", req, nil)
}

func (f *everything) Snapshot(_ context.Context, req sdk.SnapshotRequest) (sdk.SnapshotResponse, error) {
	return answer[sdk.SnapshotResponse](f, "Chain/Snapshot", req, nil)
}

func (f *everything) Revert(_ context.Context, req sdk.RevertRequest) (sdk.RevertResponse, error) {
	return answer[sdk.RevertResponse](f, "Chain/Revert", req, nil)
}

func (f *everything) SetBalance(_ context.Context, req sdk.SetBalanceRequest) (sdk.SetBalanceResponse, error) {
	return answer[sdk.SetBalanceResponse](f, "Chain/SetBalance", req, nil)
}

func (f *everything) Mine(_ context.Context, req sdk.MineRequest) (sdk.MineResponse, error) {
	return answer[sdk.MineResponse](f, "Chain/Mine", req, nil)
}

func (f *everything) Deploy(_ context.Context, req sdk.DeployRequest) (sdk.DeployResponse, error) {
	return answer[sdk.DeployResponse](f, "ContractSeeding/Deploy", req, nil)
}

func (f *everything) DeployMany(_ context.Context, req sdk.DeployManyRequest) (sdk.DeployManyResponse, error) {
	return answer[sdk.DeployManyResponse](f, "ContractSeeding/DeployMany", req, nil)
}

func (f *everything) Deployed(_ context.Context, req sdk.DeployedRequest) (sdk.DeployedResponse, error) {
	return answer[sdk.DeployedResponse](f, "ContractSeeding/Deployed", req, nil)
}

func (f *everything) Available(_ context.Context, req sdk.AvailableRequest) (sdk.AvailableResponse, error) {
	return answer[sdk.AvailableResponse](f, "ContractSeeding/Available", req, nil)
}

func (f *everything) Clear(_ context.Context, req sdk.ClearRequest) (sdk.ClearResponse, error) {
	return answer[sdk.ClearResponse](f, "ContractSeeding/Clear", req, nil)
}

func (f *everything) StartFixture(_ context.Context, req sdk.StartFixtureRequest) (sdk.StartFixtureResponse, error) {
	return answer[sdk.StartFixtureResponse](f, "Fixture/Start", req, nil)
}

func (f *everything) StopFixture(_ context.Context, req sdk.StopFixtureRequest) (sdk.StopFixtureResponse, error) {
	return answer[sdk.StopFixtureResponse](f, "Fixture/Stop", req, nil)
}

func (f *everything) Forget(_ context.Context, req sdk.ForgetRequest) (sdk.ForgetResponse, error) {
	return answer[sdk.ForgetResponse](f, "Fixture/Forget", req, nil)
}

func (f *everything) DefaultState(_ context.Context, req sdk.DefaultStateRequest) (sdk.DefaultStateResponse, error) {
	return answer[sdk.DefaultStateResponse](f, "Fixture/DefaultState", req, nil)
}

func (f *everything) OnboardingState(_ context.Context, req sdk.OnboardingStateRequest) (sdk.OnboardingStateResponse, error) {
	return answer[sdk.OnboardingStateResponse](f, "Fixture/OnboardingState", req, nil)
}

func (f *everything) ResolvePreset(_ context.Context, req sdk.ResolvePresetRequest) (sdk.ResolvePresetResponse, error) {
	return answer[sdk.ResolvePresetResponse](f, "Fixture/ResolvePreset", req, nil)
}

func (f *everything) Probe(_ context.Context, req sdk.ProbeRequest) (sdk.ProbeResponse, error) {
	return answer[sdk.ProbeResponse](f, "StateSnapshot/Probe", req, nil)
}

func (f *everything) DetectScreen(_ context.Context, req sdk.DetectScreenRequest) (sdk.DetectScreenResponse, error) {
	return answer[sdk.DetectScreenResponse](f, "StateSnapshot/DetectScreen", req, nil)
}

func (f *everything) State(_ context.Context, req sdk.StateRequest) (sdk.StateResponse, error) {
	return answer[sdk.StateResponse](f, "StateSnapshot/State", req, nil)
}

func (f *everything) StartMockServer(_ context.Context, req sdk.StartMockServerRequest) (sdk.StartMockServerResponse, error) {
	return answer[sdk.StartMockServerResponse](f, "MockServer/Start", req, nil)
}

func (f *everything) StopMockServer(_ context.Context, req sdk.StopMockServerRequest) (sdk.StopMockServerResponse, error) {
	return answer[sdk.StopMockServerResponse](f, "MockServer/Stop", req, nil)
}

func (f *everything) MockServerStatus(_ context.Context, req sdk.MockServerStatusRequest) (sdk.MockServerStatusResponse, error) {
	return answer[sdk.MockServerStatusResponse](f, "MockServer/Status", req, nil)
}

// One type implements every capability: no two capabilities share a
// method name.
var (
	_ sdk.Builder          = (*everything)(nil)
	_ sdk.Watcher          = (*everything)(nil)
	_ sdk.Chain            = (*everything)(nil)
	_ sdk.ContractSeeder   = (*everything)(nil)
	_ sdk.Fixture          = (*everything)(nil)
	_ sdk.StateSnapshotter = (*everything)(nil)
	_ sdk.MockServer       = (*everything)(nil)
	_ sdk.ToolProvider     = (*everything)(nil)
)

// recorder collects the events of a streaming call.
type recorder struct{ progress, logs []string }

func (r *recorder) Progress(_, _ float64, m string) { r.progress = append(r.progress, m) }
func (r *recorder) Log(_, m string)                 { r.logs = append(r.logs, m) }

// checkAllSet fails when any field of v, at any depth, is its zero value:
// a round trip of zero values would not notice a field that is dropped on
// the way.
func checkAllSet(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Invalid:
		t.Errorf("%s is nil", path)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				checkAllSet(t, path+"."+f.Name, v.Field(i))
			}
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			t.Errorf("%s is nil: set it, so the round trip checks it", path)
			return
		}
		checkAllSet(t, path, v.Elem())
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			t.Errorf("%s is empty: set it, so the round trip checks it", path)
		}
	default:
		if v.IsZero() {
			t.Errorf("%s is zero: set it, so the round trip checks it", path)
		}
	}
}

// show is v for a failure message: its Go type and its fields as JSON
// (pointers followed).
func show(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("%T %s", v, b)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
