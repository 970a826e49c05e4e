package sdk

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// The gRPC servers below adapt the Go-native interfaces to the wire. Domain
// failures travel in the response's Error field (see toPBError).

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
	e, err := wire.ToPBError(s.impl.Configure(ctx, Config{Workspace: r.Workspace, ArtifactsDir: r.ArtifactsDir,
		LogLevel: r.LogLevel, Settings: r.SettingsJson}))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *pluginServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, err
}

// streamEvents sends Events down a server stream; safe for concurrent use.
type streamEvents struct {
	mu   sync.Mutex
	send func(*pb.Event) error
}

func (e *streamEvents) Progress(done, total float64, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.send(&pb.Event{Kind: &pb.Event_Progress{Progress: &pb.Progress{Done: done, Total: total, Message: msg}}})
}

func (e *streamEvents) Log(level, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.send(&pb.Event{Kind: &pb.Event_Log{Log: &pb.Log{Level: level, Message: msg}}})
}

// finish sends the final result event of a stream.
func (e *streamEvents) finish(v any, err error) error {
	res := &pb.Result{}
	if err != nil {
		res.Error, err = wire.ToPBError(err)
		if err != nil {
			return err
		}
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
	e, err := wire.ToPBError(err)
	return &pb.IsBuiltResponse{Built: ok, Error: e}, err
}

func (s *buildServer) ExtensionPath(ctx context.Context, _ *pb.Empty) (*pb.PathResponse, error) {
	p, err := s.impl.ExtensionPath(ctx)
	e, err := wire.ToPBError(err)
	return &pb.PathResponse{Path: p, Error: e}, err
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
	e, err := wire.ToPBError(err)
	return &pb.WatchStatusResponse{Status: toPBWatchStatus(st), Error: e}, err
}

func (s *buildServer) StopWatch(ctx context.Context, _ *pb.Empty) (*pb.WatchStatusResponse, error) {
	w, err := s.watcher()
	var st WatchStatus
	if err == nil {
		st, err = w.StopWatch(ctx)
	}
	e, err := wire.ToPBError(err)
	return &pb.WatchStatusResponse{Status: toPBWatchStatus(st), Error: e}, err
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
	e, err := wire.ToPBError(err)
	return &pb.ChainStatusResponse{Status: toPBChainStatus(st), Error: e}, err
}

func (s *chainServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *chainServer) Status(ctx context.Context, _ *pb.Empty) (*pb.ChainStatusResponse, error) {
	st, err := s.impl.Status(ctx)
	e, err := wire.ToPBError(err)
	return &pb.ChainStatusResponse{Status: toPBChainStatus(st), Error: e}, err
}

func (s *chainServer) Snapshot(ctx context.Context, _ *pb.Empty) (*pb.SnapshotResponse, error) {
	id, err := s.impl.Snapshot(ctx)
	e, err := wire.ToPBError(err)
	return &pb.SnapshotResponse{Id: id, Error: e}, err
}

func (s *chainServer) Revert(ctx context.Context, r *pb.RevertRequest) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Revert(ctx, r.Id))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *chainServer) SetBalance(ctx context.Context, r *pb.SetBalanceRequest) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.SetBalance(ctx, r.Address, r.Wei))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *chainServer) Mine(ctx context.Context, r *pb.MineRequest) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Mine(ctx, int(r.Blocks)))
	return &pb.ErrorOnly{Error: e}, err
}

type contractsServer struct {
	pb.UnimplementedContractSeedingServer
	impl ContractSeeder
}

func (s *contractsServer) Deploy(ctx context.Context, r *pb.DeployRequest) (*pb.DeployResponse, error) {
	d, err := s.impl.Deploy(ctx, r.RpcUrl, r.Name, fromPBDeployOptions(r.Options))
	e, err := wire.ToPBError(err)
	return &pb.DeployResponse{Deployment: toPBDeployment(d), Error: e}, err
}

func (s *contractsServer) DeployMany(ctx context.Context, r *pb.DeployManyRequest) (*pb.DeployManyResponse, error) {
	res, err := s.impl.DeployMany(ctx, r.RpcUrl, r.Names, fromPBDeployOptions(r.Options))
	e, err := wire.ToPBError(err)
	out := &pb.DeployManyResponse{Deployed: toPBDeployments(res.Deployed), Error: e}
	for _, f := range res.Failed {
		out.Failed = append(out.Failed, &pb.DeployFailure{ContractName: f.ContractName, Error: f.Error})
	}
	return out, err
}

func (s *contractsServer) Deployed(ctx context.Context, _ *pb.Empty) (*pb.DeploymentsResponse, error) {
	ds, err := s.impl.Deployed(ctx)
	e, err := wire.ToPBError(err)
	return &pb.DeploymentsResponse{Deployments: toPBDeployments(ds), Error: e}, err
}

func (s *contractsServer) Available(ctx context.Context, _ *pb.Empty) (*pb.AvailableResponse, error) {
	names, err := s.impl.Available(ctx)
	e, err := wire.ToPBError(err)
	return &pb.AvailableResponse{Names: names, Error: e}, err
}

func (s *contractsServer) Clear(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Clear(ctx))
	return &pb.ErrorOnly{Error: e}, err
}

type fixtureServer struct {
	pb.UnimplementedFixtureServer
	impl Fixture
}

func (s *fixtureServer) Start(ctx context.Context, r *pb.FixtureStartRequest) (*pb.FixtureStartResponse, error) {
	st, err := s.impl.Start(ctx, r.StateJson, FixtureOptions{Port: int(r.Port), Contracts: r.Contracts, Origin: r.Origin})
	e, err := wire.ToPBError(err)
	return &pb.FixtureStartResponse{Url: st.URL, Port: int32(st.Port), OriginPort: int32(st.OriginPort), UnlockPassword: st.UnlockPassword, Error: e}, err
}

func (s *fixtureServer) Forget(ctx context.Context, r *pb.FixtureForgetRequest) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Forget(ctx, r.Origin))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *fixtureServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *fixtureServer) DefaultState(ctx context.Context, r *pb.StateOptions) (*pb.StateResponse, error) {
	st, err := s.impl.DefaultState(ctx, fromPBStateOptions(r))
	e, err := wire.ToPBError(err)
	return &pb.StateResponse{StateJson: st, Error: e}, err
}

func (s *fixtureServer) OnboardingState(ctx context.Context, r *pb.StateOptions) (*pb.StateResponse, error) {
	st, err := s.impl.OnboardingState(ctx, fromPBStateOptions(r))
	e, err := wire.ToPBError(err)
	return &pb.StateResponse{StateJson: st, Error: e}, err
}

func (s *fixtureServer) ResolvePreset(ctx context.Context, r *pb.ResolvePresetRequest) (*pb.StateResponse, error) {
	st, err := s.impl.ResolvePreset(ctx, r.Name, fromPBStateOptions(r.Options))
	e, err := wire.ToPBError(err)
	return &pb.StateResponse{StateJson: st, Error: e}, err
}

type mockServer struct {
	pb.UnimplementedMockServerServer
	impl MockServer
}

func (s *mockServer) Start(ctx context.Context, r *pb.MockServerOptions) (*pb.MockServerStatusResponse, error) {
	st, err := s.impl.Start(ctx, MockServerOptions{Port: int(r.Port)})
	e, err := wire.ToPBError(err)
	return &pb.MockServerStatusResponse{Status: toPBMockStatus(st), Error: e}, err
}

func (s *mockServer) Stop(ctx context.Context, _ *pb.Empty) (*pb.ErrorOnly, error) {
	e, err := wire.ToPBError(s.impl.Stop(ctx))
	return &pb.ErrorOnly{Error: e}, err
}

func (s *mockServer) IsRunning(ctx context.Context, _ *pb.Empty) (*pb.IsRunningResponse, error) {
	ok, err := s.impl.IsRunning(ctx)
	e, err := wire.ToPBError(err)
	return &pb.IsRunningResponse{Running: ok, Error: e}, err
}

func (s *mockServer) Status(ctx context.Context, _ *pb.Empty) (*pb.MockServerStatusResponse, error) {
	st, err := s.impl.Status(ctx)
	e, err := wire.ToPBError(err)
	return &pb.MockServerStatusResponse{Status: toPBMockStatus(st), Error: e}, err
}
