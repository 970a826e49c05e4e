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
	v, err := s.impl.CallTool(stream.Context(), r.Name, args, ev)
	return ev.finish(v, err)
}

type buildServer struct {
	pb.UnimplementedBuildServer
	impl Builder
}

func (s *buildServer) Build(r *pb.BuildRequest, stream pb.Build_BuildServer) error {
	ev := &streamEvents{send: stream.Send}
	res, err := s.impl.Build(stream.Context(), BuildOptions{BuildType: r.BuildType, Force: r.Force}, ev)
	return ev.finish(res, err)
}

func (s *buildServer) IsBuilt(ctx context.Context, _ *pb.Empty) (*pb.IsBuiltResponse, error) {
	ok, err := s.impl.IsBuilt(ctx)
	e := wire.ToPBError(err)
	return &pb.IsBuiltResponse{Built: ok, Error: e}, nil
}

func (s *buildServer) ExtensionPath(ctx context.Context, _ *pb.Empty) (*pb.PathResponse, error) {
	p, err := s.impl.ExtensionPath(ctx)
	e := wire.ToPBError(err)
	return &pb.PathResponse{Path: p, Error: e}, nil
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
	var st WatchStatus
	if err == nil {
		st, err = w.StartWatch(ctx)
	}
	e := wire.ToPBError(err)
	return &pb.WatchStatusResponse{Status: toPBWatchStatus(st), Error: e}, nil
}

func (s *buildServer) StopWatch(ctx context.Context, _ *pb.Empty) (*pb.WatchStatusResponse, error) {
	w, err := s.watcher()
	var st WatchStatus
	if err == nil {
		st, err = w.StopWatch(ctx)
	}
	e := wire.ToPBError(err)
	return &pb.WatchStatusResponse{Status: toPBWatchStatus(st), Error: e}, nil
}

func (s *buildServer) WaitReady(r *pb.WaitReadyRequest, stream pb.Build_WaitReadyServer) error {
	ev := &streamEvents{send: stream.Send}
	w, err := s.watcher()
	if err != nil {
		return ev.finish(nil, err)
	}
	res, err := w.WaitReady(stream.Context(), r.TimeoutMs, ev)
	return ev.finish(res, err)
}

type chainServer struct {
	pb.UnimplementedChainServer
	impl Chain
}

func (s *chainServer) Start(ctx context.Context, r *pb.ChainOptions) (*pb.ChainStatusResponse, error) {
	st, err := s.impl.Start(ctx, fromPBChainOptions(r))
	e := wire.ToPBError(err)
	return &pb.ChainStatusResponse{Status: toPBChainStatus(st), Error: e}, nil
}

func (s *chainServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *chainServer) Status(ctx context.Context, _ *pb.Empty) (*pb.ChainStatusResponse, error) {
	st, err := s.impl.Status(ctx)
	e := wire.ToPBError(err)
	return &pb.ChainStatusResponse{Status: toPBChainStatus(st), Error: e}, nil
}

func (s *chainServer) Snapshot(ctx context.Context, _ *pb.Empty) (*pb.SnapshotResponse, error) {
	id, err := s.impl.Snapshot(ctx)
	e := wire.ToPBError(err)
	return &pb.SnapshotResponse{Id: id, Error: e}, nil
}

func (s *chainServer) Revert(ctx context.Context, r *pb.RevertRequest) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Revert(ctx, r.Id))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *chainServer) SetBalance(ctx context.Context, r *pb.SetBalanceRequest) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.SetBalance(ctx, r.Address, r.Wei))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *chainServer) Mine(ctx context.Context, r *pb.MineRequest) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Mine(ctx, int(r.Blocks)))
	return &pb.ErrorOnly{Error: e}, nil
}

type contractsServer struct {
	pb.UnimplementedContractSeedingServer
	impl ContractSeeder
}

func (s *contractsServer) Deploy(ctx context.Context, r *pb.DeployRequest) (*pb.DeployResponse, error) {
	d, err := s.impl.Deploy(ctx, r.RpcUrl, r.Name, fromPBDeployOptions(r.Options))
	e := wire.ToPBError(err)
	return &pb.DeployResponse{Deployment: toPBDeployment(d), Error: e}, nil
}

func (s *contractsServer) DeployMany(ctx context.Context, r *pb.DeployManyRequest) (*pb.DeployManyResponse, error) {
	res, err := s.impl.DeployMany(ctx, r.RpcUrl, r.Names, fromPBDeployOptions(r.Options))
	out := &pb.DeployManyResponse{Deployed: toPBDeployments(res.Deployed), Error: wire.ToPBError(err)}
	for _, f := range res.Failed {
		out.Failed = append(out.Failed, &pb.DeployFailure{ContractName: f.ContractName, Error: wire.ValidUTF8(f.Error)})
	}
	return out, nil
}

func (s *contractsServer) Deployed(ctx context.Context, _ *pb.Empty) (*pb.DeploymentsResponse, error) {
	ds, err := s.impl.Deployed(ctx)
	e := wire.ToPBError(err)
	return &pb.DeploymentsResponse{Deployments: toPBDeployments(ds), Error: e}, nil
}

func (s *contractsServer) Available(ctx context.Context, _ *pb.Empty) (*pb.AvailableResponse, error) {
	names, err := s.impl.Available(ctx)
	e := wire.ToPBError(err)
	return &pb.AvailableResponse{Names: names, Error: e}, nil
}

func (s *contractsServer) Clear(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Clear(ctx))
	return &pb.ErrorOnly{Error: e}, nil
}

type fixtureServer struct {
	pb.UnimplementedFixtureServer
	impl Fixture
}

func (s *fixtureServer) Start(ctx context.Context, r *pb.FixtureStartRequest) (*pb.FixtureStartResponse, error) {
	st, err := s.impl.Start(ctx, r.StateJson, FixtureOptions{Port: int(r.Port), Contracts: r.Contracts, Origin: r.Origin})
	e := wire.ToPBError(err)
	return &pb.FixtureStartResponse{Url: st.URL, Port: int32(st.Port), OriginPort: int32(st.OriginPort), UnlockPassword: st.UnlockPassword, Error: e}, nil
}

func (s *fixtureServer) Forget(ctx context.Context, r *pb.FixtureForgetRequest) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Forget(ctx, r.Origin))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *fixtureServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *fixtureServer) DefaultState(ctx context.Context, r *pb.StateOptions) (*pb.StateResponse, error) {
	st, err := s.impl.DefaultState(ctx, fromPBStateOptions(r))
	e := wire.ToPBError(err)
	return &pb.StateResponse{StateJson: st, Error: e}, nil
}

func (s *fixtureServer) OnboardingState(ctx context.Context, r *pb.StateOptions) (*pb.StateResponse, error) {
	st, err := s.impl.OnboardingState(ctx, fromPBStateOptions(r))
	e := wire.ToPBError(err)
	return &pb.StateResponse{StateJson: st, Error: e}, nil
}

func (s *fixtureServer) ResolvePreset(ctx context.Context, r *pb.ResolvePresetRequest) (*pb.StateResponse, error) {
	st, err := s.impl.ResolvePreset(ctx, r.Name, fromPBStateOptions(r.Options))
	e := wire.ToPBError(err)
	return &pb.StateResponse{StateJson: st, Error: e}, nil
}

type mockServer struct {
	pb.UnimplementedMockServerServer
	impl MockServer
}

func (s *mockServer) Start(ctx context.Context, r *pb.MockServerOptions) (*pb.MockServerStatusResponse, error) {
	st, err := s.impl.Start(ctx, MockServerOptions{Port: int(r.Port)})
	e := wire.ToPBError(err)
	return &pb.MockServerStatusResponse{Status: toPBMockStatus(st), Error: e}, nil
}

func (s *mockServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, nil
}

func (s *mockServer) IsRunning(ctx context.Context, _ *pb.Empty) (*pb.IsRunningResponse, error) {
	ok, err := s.impl.IsRunning(ctx)
	e := wire.ToPBError(err)
	return &pb.IsRunningResponse{Running: ok, Error: e}, nil
}

func (s *mockServer) Status(ctx context.Context, _ *pb.Empty) (*pb.MockServerStatusResponse, error) {
	st, err := s.impl.Status(ctx)
	e := wire.ToPBError(err)
	return &pb.MockServerStatusResponse{Status: toPBMockStatus(st), Error: e}, nil
}
