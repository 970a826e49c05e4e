package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// The capability adapters: each turns one gRPC service client back into
// the sdk interface a plugin implements.

// Builder returns the plugin's Build capability.
func (c *Conn) Builder() sdk.Builder { return buildClient{c.build} }

// Chain returns the plugin's Chain capability.
func (c *Conn) Chain() sdk.Chain { return chainClient{c.chain} }

// ContractSeeder returns the plugin's ContractSeeding capability.
func (c *Conn) ContractSeeder() sdk.ContractSeeder { return contractsClient{c.contracts} }

// Fixture returns the plugin's Fixture capability.
func (c *Conn) Fixture() sdk.Fixture { return fixtureClient{c.fixture} }

// StateSnapshot returns the plugin's StateSnapshot capability.
func (c *Conn) StateSnapshot() sdk.StateSnapshotter { return stateSnapshotClient{c.state} }

// MockServer returns the plugin's MockServer capability.
func (c *Conn) MockServer() sdk.MockServer { return mockClient{c.mock} }

type buildClient struct{ c pb.BuildClient }

func (b buildClient) Build(ctx context.Context, req sdk.BuildRequest, ev sdk.Events) (sdk.BuildResponse, error) {
	s, err := b.c.Build(ctx, &pb.BuildRequest{BuildType: req.BuildType, Force: req.Force})
	if err != nil {
		return sdk.BuildResponse{}, err
	}
	raw, err := recvResult(s, ev)
	if err != nil {
		return sdk.BuildResponse{}, err
	}
	var r sdk.BuildResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return sdk.BuildResponse{}, fmt.Errorf("decode build result: %w", err)
	}
	return r, nil
}

func (b buildClient) IsBuilt(ctx context.Context, _ sdk.IsBuiltRequest) (sdk.IsBuiltResponse, error) {
	r, err := b.c.IsBuilt(ctx, &pb.Empty{})
	if err != nil {
		return sdk.IsBuiltResponse{}, err
	}
	return sdk.IsBuiltResponse{Built: r.Built}, wire.FromPBError(r.Error)
}

func (b buildClient) ExtensionPath(ctx context.Context, _ sdk.ExtensionPathRequest) (sdk.ExtensionPathResponse, error) {
	r, err := b.c.ExtensionPath(ctx, &pb.Empty{})
	if err != nil {
		return sdk.ExtensionPathResponse{}, err
	}
	return sdk.ExtensionPathResponse{Path: r.Path}, wire.FromPBError(r.Error)
}

// Watcher returns the plugin's watch lifecycle (the Build service's watch
// calls).
func (c *Conn) Watcher() sdk.Watcher { return watchClient{c.build} }

type watchClient struct{ c pb.BuildClient }

func (w watchClient) StartWatch(ctx context.Context, _ sdk.StartWatchRequest) (sdk.StartWatchResponse, error) {
	r, err := w.c.StartWatch(ctx, &pb.Empty{})
	if err != nil {
		return sdk.StartWatchResponse{}, err
	}
	return sdk.StartWatchResponse{Status: fromPBWatchStatus(r.Status)}, wire.FromPBError(r.Error)
}

func (w watchClient) StopWatch(ctx context.Context, _ sdk.StopWatchRequest) (sdk.StopWatchResponse, error) {
	r, err := w.c.StopWatch(ctx, &pb.Empty{})
	if err != nil {
		return sdk.StopWatchResponse{}, err
	}
	return sdk.StopWatchResponse{Status: fromPBWatchStatus(r.Status)}, wire.FromPBError(r.Error)
}

func (w watchClient) WaitReady(ctx context.Context, req sdk.WaitReadyRequest, ev sdk.Events) (sdk.WaitReadyResponse, error) {
	s, err := w.c.WaitReady(ctx, &pb.WaitReadyRequest{TimeoutMs: req.TimeoutMs})
	if err != nil {
		return sdk.WaitReadyResponse{}, err
	}
	raw, err := recvResult(s, ev)
	if err != nil {
		return sdk.WaitReadyResponse{}, err
	}
	var r sdk.Rebuild
	if err := json.Unmarshal(raw, &r); err != nil {
		return sdk.WaitReadyResponse{}, fmt.Errorf("decode rebuild: %w", err)
	}
	return sdk.WaitReadyResponse{Rebuild: r}, nil
}

type chainClient struct{ c pb.ChainClient }

func (c chainClient) StartChain(ctx context.Context, req sdk.StartChainRequest) (sdk.StartChainResponse, error) {
	opts := toPBChainOptions(req.ChainOptions)
	opts.State = req.State
	r, err := c.c.Start(ctx, opts)
	if err != nil {
		return sdk.StartChainResponse{}, err
	}
	return sdk.StartChainResponse{Status: fromPBChainStatus(r.Status)}, wire.FromPBError(r.Error)
}

func (c chainClient) StopChain(ctx context.Context, _ sdk.StopChainRequest) (sdk.StopChainResponse, error) {
	r, err := c.c.Stop(ctx, &pb.Empty{})
	return sdk.StopChainResponse{}, errorOnly(r, err)
}

func (c chainClient) ChainStatus(ctx context.Context, _ sdk.ChainStatusRequest) (sdk.ChainStatusResponse, error) {
	r, err := c.c.Status(ctx, &pb.Empty{})
	if err != nil {
		return sdk.ChainStatusResponse{}, err
	}
	return sdk.ChainStatusResponse{Status: fromPBChainStatus(r.Status)}, wire.FromPBError(r.Error)
}

func (c chainClient) Snapshot(ctx context.Context, _ sdk.SnapshotRequest) (sdk.SnapshotResponse, error) {
	r, err := c.c.Snapshot(ctx, &pb.Empty{})
	if err != nil {
		return sdk.SnapshotResponse{}, err
	}
	return sdk.SnapshotResponse{ID: r.Id}, wire.FromPBError(r.Error)
}

func (c chainClient) Revert(ctx context.Context, req sdk.RevertRequest) (sdk.RevertResponse, error) {
	r, err := c.c.Revert(ctx, &pb.RevertRequest{Id: req.ID})
	return sdk.RevertResponse{}, errorOnly(r, err)
}

func (c chainClient) SetBalance(ctx context.Context, req sdk.SetBalanceRequest) (sdk.SetBalanceResponse, error) {
	r, err := c.c.SetBalance(ctx, &pb.SetBalanceRequest{Address: req.Address, Wei: req.Wei})
	return sdk.SetBalanceResponse{}, errorOnly(r, err)
}

func (c chainClient) Mine(ctx context.Context, req sdk.MineRequest) (sdk.MineResponse, error) {
	r, err := c.c.Mine(ctx, &pb.MineRequest{Blocks: int32(req.Blocks)})
	return sdk.MineResponse{}, errorOnly(r, err)
}

// errorOnly is the error of a call whose response is an ErrorOnly: the
// transport's, else the plugin's domain failure.
func errorOnly(r *pb.ErrorOnly, err error) error {
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

type contractsClient struct{ c pb.ContractSeedingClient }

func (c contractsClient) Deploy(ctx context.Context, req sdk.DeployRequest) (sdk.DeployResponse, error) {
	r, err := c.c.Deploy(ctx, &pb.DeployRequest{RpcUrl: req.RPCURL, Name: req.Name, Options: toPBDeployOptions(req.Options)})
	if err != nil {
		return sdk.DeployResponse{}, err
	}
	return sdk.DeployResponse{Deployment: fromPBDeployment(r.Deployment)}, wire.FromPBError(r.Error)
}

func (c contractsClient) DeployMany(ctx context.Context, req sdk.DeployManyRequest) (sdk.DeployManyResponse, error) {
	r, err := c.c.DeployMany(ctx, &pb.DeployManyRequest{RpcUrl: req.RPCURL, Names: req.Names, Options: toPBDeployOptions(req.Options)})
	if err != nil {
		return sdk.DeployManyResponse{}, err
	}
	out := sdk.DeployManyResponse{Deployed: fromPBDeployments(r.Deployed), Failed: []sdk.DeployFailure{}}
	for _, f := range r.Failed {
		out.Failed = append(out.Failed, sdk.DeployFailure{ContractName: f.ContractName, Error: f.Error})
	}
	return out, wire.FromPBError(r.Error)
}

func (c contractsClient) Deployed(ctx context.Context, _ sdk.DeployedRequest) (sdk.DeployedResponse, error) {
	r, err := c.c.Deployed(ctx, &pb.Empty{})
	if err != nil {
		return sdk.DeployedResponse{}, err
	}
	return sdk.DeployedResponse{Deployments: fromPBDeployments(r.Deployments)}, wire.FromPBError(r.Error)
}

func (c contractsClient) Available(ctx context.Context, _ sdk.AvailableRequest) (sdk.AvailableResponse, error) {
	r, err := c.c.Available(ctx, &pb.Empty{})
	if err != nil {
		return sdk.AvailableResponse{}, err
	}
	return sdk.AvailableResponse{Names: r.Names}, wire.FromPBError(r.Error)
}

func (c contractsClient) Clear(ctx context.Context, _ sdk.ClearRequest) (sdk.ClearResponse, error) {
	r, err := c.c.Clear(ctx, &pb.Empty{})
	return sdk.ClearResponse{}, errorOnly(r, err)
}

type fixtureClient struct{ c pb.FixtureClient }

func (f fixtureClient) StartFixture(ctx context.Context, req sdk.StartFixtureRequest) (sdk.StartFixtureResponse, error) {
	r, err := f.c.Start(ctx, &pb.FixtureStartRequest{StateJson: req.State, Port: int32(req.Port), Contracts: req.Contracts, Origin: req.Origin})
	if err != nil {
		return sdk.StartFixtureResponse{}, err
	}
	st := sdk.FixtureStatus{URL: r.Url, Port: int(r.Port), OriginPort: int(r.OriginPort), UnlockPassword: r.UnlockPassword}
	return sdk.StartFixtureResponse{Status: st}, wire.FromPBError(r.Error)
}

func (f fixtureClient) Forget(ctx context.Context, req sdk.ForgetRequest) (sdk.ForgetResponse, error) {
	r, err := f.c.Forget(ctx, &pb.FixtureForgetRequest{Origin: req.Origin})
	return sdk.ForgetResponse{}, errorOnly(r, err)
}

func (f fixtureClient) StopFixture(ctx context.Context, _ sdk.StopFixtureRequest) (sdk.StopFixtureResponse, error) {
	r, err := f.c.Stop(ctx, &pb.Empty{})
	return sdk.StopFixtureResponse{}, errorOnly(r, err)
}

func (f fixtureClient) DefaultState(ctx context.Context, req sdk.DefaultStateRequest) (sdk.DefaultStateResponse, error) {
	r, err := f.c.DefaultState(ctx, toPBStateOptions(req.StateOptions))
	if err != nil {
		return sdk.DefaultStateResponse{}, err
	}
	return sdk.DefaultStateResponse{State: r.StateJson}, wire.FromPBError(r.Error)
}

func (f fixtureClient) OnboardingState(ctx context.Context, req sdk.OnboardingStateRequest) (sdk.OnboardingStateResponse, error) {
	r, err := f.c.OnboardingState(ctx, toPBStateOptions(req.StateOptions))
	if err != nil {
		return sdk.OnboardingStateResponse{}, err
	}
	return sdk.OnboardingStateResponse{State: r.StateJson}, wire.FromPBError(r.Error)
}

func (f fixtureClient) ResolvePreset(ctx context.Context, req sdk.ResolvePresetRequest) (sdk.ResolvePresetResponse, error) {
	r, err := f.c.ResolvePreset(ctx, &pb.ResolvePresetRequest{Name: req.Name, Options: toPBStateOptions(req.StateOptions)})
	if err != nil {
		return sdk.ResolvePresetResponse{}, err
	}
	return sdk.ResolvePresetResponse{State: r.StateJson}, wire.FromPBError(r.Error)
}

type mockClient struct{ c pb.MockServerClient }

func (m mockClient) StartMockServer(ctx context.Context, req sdk.StartMockServerRequest) (sdk.StartMockServerResponse, error) {
	r, err := m.c.Start(ctx, &pb.MockServerOptions{Port: int32(req.Port)})
	if err != nil {
		return sdk.StartMockServerResponse{}, err
	}
	return sdk.StartMockServerResponse{Status: fromPBMockStatus(r.Status)}, wire.FromPBError(r.Error)
}

func (m mockClient) StopMockServer(ctx context.Context, _ sdk.StopMockServerRequest) (sdk.StopMockServerResponse, error) {
	r, err := m.c.Stop(ctx, &pb.Empty{})
	return sdk.StopMockServerResponse{}, errorOnly(r, err)
}

func (m mockClient) MockServerStatus(ctx context.Context, _ sdk.MockServerStatusRequest) (sdk.MockServerStatusResponse, error) {
	r, err := m.c.Status(ctx, &pb.Empty{})
	if err != nil {
		return sdk.MockServerStatusResponse{}, err
	}
	return sdk.MockServerStatusResponse{Status: fromPBMockStatus(r.Status)}, wire.FromPBError(r.Error)
}

// Interface guards.
var (
	_ sdk.Builder          = buildClient{}
	_ sdk.Watcher          = watchClient{}
	_ sdk.Chain            = chainClient{}
	_ sdk.ContractSeeder   = contractsClient{}
	_ sdk.Fixture          = fixtureClient{}
	_ sdk.MockServer       = mockClient{}
	_ sdk.StateSnapshotter = stateSnapshotClient{}
)

type stateSnapshotClient struct{ c pb.StateSnapshotClient }

func (s stateSnapshotClient) Probe(ctx context.Context, _ sdk.ProbeRequest) (sdk.ProbeResponse, error) {
	r, err := s.c.Probe(ctx, &pb.Empty{})
	if err != nil {
		return sdk.ProbeResponse{}, err
	}
	return sdk.ProbeResponse{Probe: sdk.StateProbe{Elements: r.Elements, Script: r.Script}}, wire.FromPBError(r.Error)
}

func (s stateSnapshotClient) DetectScreen(ctx context.Context, req sdk.DetectScreenRequest) (sdk.DetectScreenResponse, error) {
	r, err := s.c.DetectScreen(ctx, toPBPage(req.Page))
	if err != nil {
		return sdk.DetectScreenResponse{}, err
	}
	return sdk.DetectScreenResponse{Screen: r.Screen}, wire.FromPBError(r.Error)
}

func (s stateSnapshotClient) State(ctx context.Context, req sdk.StateRequest) (sdk.StateResponse, error) {
	r, err := s.c.State(ctx, &pb.StateRequest{Page: toPBPage(req.Page), ExtensionId: req.ExtensionID, ChainId: req.ChainID})
	if err != nil {
		return sdk.StateResponse{}, err
	}
	return sdk.StateResponse{Status: sdk.WalletStatus{IsUnlocked: r.IsUnlocked, AccountAddress: r.AccountAddress, NetworkName: r.NetworkName,
		ChainID: r.ChainId, Balance: r.Balance, ErrorMessage: r.ErrorMessage}}, wire.FromPBError(r.Error)
}

func toPBPage(p sdk.PageSnapshot) *pb.PageSnapshot {
	els := make(map[string]*pb.ElementProbe, len(p.Elements))
	for k, e := range p.Elements {
		els[k] = &pb.ElementProbe{Present: e.Present, Text: e.Text}
	}
	return &pb.PageSnapshot{Url: p.URL, Role: p.Role, Elements: els, AppStateJson: p.AppState}
}
