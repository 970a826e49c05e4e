package sdk

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// The gRPC servers below adapt the Go-native interfaces to the wire. Every
// error a capability returns travels in the response's Error field (see
// wire.ToPBError); a gRPC error means the connection failed.

type pluginServer struct {
	pb.UnimplementedPluginServer
	impl Plugin
}

func (s *pluginServer) Describe(context.Context, *pb.Empty) (*pb.DescribeResponse, error) {
	return describe(s.impl), nil
}

func describe(impl Plugin) *pb.DescribeResponse {
	info := impl.Info()
	resp := &pb.DescribeResponse{Name: info.Name, Version: info.Version, ApiVersion: APIVersion}
	for _, c := range Capabilities(impl) {
		resp.Capabilities = append(resp.Capabilities, string(c))
	}
	if tp, ok := impl.(ToolProvider); ok {
		for _, t := range tp.Tools() {
			resp.Tools = append(resp.Tools, &pb.Tool{Name: t.Name, Description: t.Description, InputSchemaJson: t.InputSchema})
		}
	}
	return resp
}

func (s *pluginServer) Configure(ctx context.Context, r *pb.ConfigureRequest) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Configure(ctx, Config{Workspace: r.Workspace, ArtifactsDir: r.ArtifactsDir,
		LogLevel: r.LogLevel, Settings: r.SettingsJson}))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *pluginServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, nil
}

// streamEvents sends Events down a server stream; safe for concurrent use.
type streamEvents struct {
	mu   sync.Mutex
	send func(*pb.Event) error
}

func (e *streamEvents) Progress(done, total float64, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.send(&pb.Event{Kind: &pb.Event_Progress{Progress: &pb.Progress{Done: done, Total: total, Message: wire.ValidUTF8(msg)}}})
}

func (e *streamEvents) Log(level, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.send(&pb.Event{Kind: &pb.Event_Log{Log: &pb.Log{Level: level, Message: wire.ValidUTF8(msg)}}})
}

// finish sends the final result event of a stream.
func (e *streamEvents) finish(v any, err error) error {
	res := &pb.Result{}
	if err != nil {
		res.Error = wire.ToPBError(err)
	} else {
		b, merr := json.Marshal(v)
		if merr != nil {
			return merr
		}
		res.Json = b
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.send(&pb.Event{Kind: &pb.Event_Result{Result: res}})
}

type toolsServer struct {
	pb.UnimplementedToolsServer
	impl ToolProvider
}

func (s *toolsServer) CallTool(r *pb.CallToolRequest, stream pb.Tools_CallToolServer) error {
	ev := &streamEvents{send: stream.Send}
	args := json.RawMessage(r.ArgsJson)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := s.impl.CallTool(stream.Context(), CallToolRequest{Name: r.Name, Arguments: args}, ev)
	return ev.finish(res.Result, err)
}

type buildServer struct {
	pb.UnimplementedBuildServer
	impl Builder
}

func (s *buildServer) Build(r *pb.BuildRequest, stream pb.Build_BuildServer) error {
	ev := &streamEvents{send: stream.Send}
	res, err := s.impl.Build(stream.Context(), BuildRequest{BuildType: r.BuildType, Force: r.Force}, ev)
	return ev.finish(res, err)
}

func (s *buildServer) IsBuilt(ctx context.Context, _ *pb.Empty) (*pb.IsBuiltResponse, error) {
	res, err := s.impl.IsBuilt(ctx, IsBuiltRequest{})
	return &pb.IsBuiltResponse{Built: res.Built, Error: wire.ToPBError(err)}, nil
}

func (s *buildServer) ExtensionPath(ctx context.Context, _ *pb.Empty) (*pb.PathResponse, error) {
	res, err := s.impl.ExtensionPath(ctx, ExtensionPathRequest{})
	return &pb.PathResponse{Path: res.Path, Error: wire.ToPBError(err)}, nil
}

// watcher is the Build service's watch half: impl's Watcher, or an
// MM_CAPABILITY_MISSING answer when it has none.
func (s *buildServer) watcher() (Watcher, error) {
	if w, ok := s.impl.(Watcher); ok {
		return w, nil
	}
	return nil, Errorf(CodeCapabilityMissing, "this build plugin has no watch lifecycle (capability %q)", CapBuildWatch)
}

func (s *buildServer) StartWatch(ctx context.Context, _ *pb.Empty) (*pb.WatchStatusResponse, error) {
	w, err := s.watcher()
	var res StartWatchResponse
	if err == nil {
		res, err = w.StartWatch(ctx, StartWatchRequest{})
	}
	return &pb.WatchStatusResponse{Status: toPBWatchStatus(res.Status), Error: wire.ToPBError(err)}, nil
}

func (s *buildServer) StopWatch(ctx context.Context, _ *pb.Empty) (*pb.WatchStatusResponse, error) {
	w, err := s.watcher()
	var res StopWatchResponse
	if err == nil {
		res, err = w.StopWatch(ctx, StopWatchRequest{})
	}
	return &pb.WatchStatusResponse{Status: toPBWatchStatus(res.Status), Error: wire.ToPBError(err)}, nil
}

// WaitReady's stream result is the Rebuild's JSON (the wire's shape since
// version 1), not the WaitReadyResponse's.
func (s *buildServer) WaitReady(r *pb.WaitReadyRequest, stream pb.Build_WaitReadyServer) error {
	ev := &streamEvents{send: stream.Send}
	w, err := s.watcher()
	if err != nil {
		return ev.finish(nil, err)
	}
	res, err := w.WaitReady(stream.Context(), WaitReadyRequest{TimeoutMs: r.TimeoutMs}, ev)
	return ev.finish(res.Rebuild, err)
}

type chainServer struct {
	pb.UnimplementedChainServer
	impl Chain
}

func (s *chainServer) Start(ctx context.Context, r *pb.ChainOptions) (*pb.ChainStatusResponse, error) {
	res, err := s.impl.StartChain(ctx, StartChainRequest{ChainOptions: fromPBChainOptions(r), State: r.GetState()})
	return &pb.ChainStatusResponse{Status: toPBChainStatus(res.Status), Error: wire.ToPBError(err)}, nil
}

func (s *chainServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	_, err := s.impl.StopChain(ctx, StopChainRequest{})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

func (s *chainServer) Status(ctx context.Context, _ *pb.Empty) (*pb.ChainStatusResponse, error) {
	res, err := s.impl.ChainStatus(ctx, ChainStatusRequest{})
	return &pb.ChainStatusResponse{Status: toPBChainStatus(res.Status), Error: wire.ToPBError(err)}, nil
}

func (s *chainServer) Snapshot(ctx context.Context, _ *pb.Empty) (*pb.SnapshotResponse, error) {
	res, err := s.impl.Snapshot(ctx, SnapshotRequest{})
	return &pb.SnapshotResponse{Id: res.ID, Error: wire.ToPBError(err)}, nil
}

func (s *chainServer) Revert(ctx context.Context, r *pb.RevertRequest) (*pb.ErrorOnly, error) {
	_, err := s.impl.Revert(ctx, RevertRequest{ID: r.Id})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

func (s *chainServer) SetBalance(ctx context.Context, r *pb.SetBalanceRequest) (*pb.ErrorOnly, error) {
	_, err := s.impl.SetBalance(ctx, SetBalanceRequest{Address: r.Address, Wei: r.Wei})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

func (s *chainServer) Mine(ctx context.Context, r *pb.MineRequest) (*pb.ErrorOnly, error) {
	_, err := s.impl.Mine(ctx, MineRequest{Blocks: int(r.Blocks)})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

type contractsServer struct {
	pb.UnimplementedContractSeedingServer
	impl ContractSeeder
}

func (s *contractsServer) Deploy(ctx context.Context, r *pb.DeployRequest) (*pb.DeployResponse, error) {
	res, err := s.impl.Deploy(ctx, DeployRequest{RPCURL: r.RpcUrl, Name: r.Name, Options: fromPBDeployOptions(r.Options)})
	return &pb.DeployResponse{Deployment: toPBDeployment(res.Deployment), Error: wire.ToPBError(err)}, nil
}

func (s *contractsServer) DeployMany(ctx context.Context, r *pb.DeployManyRequest) (*pb.DeployManyResponse, error) {
	res, err := s.impl.DeployMany(ctx, DeployManyRequest{RPCURL: r.RpcUrl, Names: r.Names, Options: fromPBDeployOptions(r.Options)})
	out := &pb.DeployManyResponse{Deployed: toPBDeployments(res.Deployed), Error: wire.ToPBError(err)}
	for _, f := range res.Failed {
		out.Failed = append(out.Failed, &pb.DeployFailure{ContractName: f.ContractName, Error: wire.ValidUTF8(f.Error)})
	}
	return out, nil
}

func (s *contractsServer) Deployed(ctx context.Context, _ *pb.Empty) (*pb.DeploymentsResponse, error) {
	res, err := s.impl.Deployed(ctx, DeployedRequest{})
	return &pb.DeploymentsResponse{Deployments: toPBDeployments(res.Deployments), Error: wire.ToPBError(err)}, nil
}

func (s *contractsServer) Available(ctx context.Context, _ *pb.Empty) (*pb.AvailableResponse, error) {
	res, err := s.impl.Available(ctx, AvailableRequest{})
	return &pb.AvailableResponse{Names: res.Names, Error: wire.ToPBError(err)}, nil
}

func (s *contractsServer) Clear(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	_, err := s.impl.Clear(ctx, ClearRequest{})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

type fixtureServer struct {
	pb.UnimplementedFixtureServer
	impl Fixture
}

func (s *fixtureServer) Start(ctx context.Context, r *pb.FixtureStartRequest) (*pb.FixtureStartResponse, error) {
	res, err := s.impl.StartFixture(ctx, StartFixtureRequest{State: r.StateJson,
		FixtureOptions: FixtureOptions{Port: int(r.Port), Contracts: r.Contracts, Origin: r.Origin}})
	st := res.Status
	return &pb.FixtureStartResponse{Url: st.URL, Port: int32(st.Port), OriginPort: int32(st.OriginPort),
		UnlockPassword: st.UnlockPassword, Error: wire.ToPBError(err)}, nil
}

func (s *fixtureServer) Forget(ctx context.Context, r *pb.FixtureForgetRequest) (*pb.ErrorOnly, error) {
	_, err := s.impl.Forget(ctx, ForgetRequest{Origin: r.Origin})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

func (s *fixtureServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	_, err := s.impl.StopFixture(ctx, StopFixtureRequest{})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

func (s *fixtureServer) DefaultState(ctx context.Context, r *pb.StateOptions) (*pb.StateResponse, error) {
	res, err := s.impl.DefaultState(ctx, DefaultStateRequest{StateOptions: fromPBStateOptions(r)})
	return &pb.StateResponse{StateJson: res.State, Error: wire.ToPBError(err)}, nil
}

func (s *fixtureServer) OnboardingState(ctx context.Context, r *pb.StateOptions) (*pb.StateResponse, error) {
	res, err := s.impl.OnboardingState(ctx, OnboardingStateRequest{StateOptions: fromPBStateOptions(r)})
	return &pb.StateResponse{StateJson: res.State, Error: wire.ToPBError(err)}, nil
}

func (s *fixtureServer) ResolvePreset(ctx context.Context, r *pb.ResolvePresetRequest) (*pb.StateResponse, error) {
	res, err := s.impl.ResolvePreset(ctx, ResolvePresetRequest{Name: r.Name, StateOptions: fromPBStateOptions(r.Options)})
	return &pb.StateResponse{StateJson: res.State, Error: wire.ToPBError(err)}, nil
}

type mockServer struct {
	pb.UnimplementedMockServerServer
	impl MockServer
}

func (s *mockServer) Start(ctx context.Context, r *pb.MockServerOptions) (*pb.MockServerStatusResponse, error) {
	res, err := s.impl.StartMockServer(ctx, StartMockServerRequest{MockServerOptions: MockServerOptions{Port: int(r.Port)}})
	return &pb.MockServerStatusResponse{Status: toPBMockStatus(res.Status), Error: wire.ToPBError(err)}, nil
}

func (s *mockServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	_, err := s.impl.StopMockServer(ctx, StopMockServerRequest{})
	return &pb.ErrorOnly{Error: wire.ToPBError(err)}, nil
}

func (s *mockServer) Status(ctx context.Context, _ *pb.Empty) (*pb.MockServerStatusResponse, error) {
	res, err := s.impl.MockServerStatus(ctx, MockServerStatusRequest{})
	return &pb.MockServerStatusResponse{Status: toPBMockStatus(res.Status), Error: wire.ToPBError(err)}, nil
}
