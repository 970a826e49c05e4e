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

func (b buildClient) Build(ctx context.Context, o sdk.BuildOptions, ev sdk.Events) (sdk.BuildResult, error) {
	s, err := b.c.Build(ctx, &pb.BuildRequest{BuildType: o.BuildType, Force: o.Force})
	if err != nil {
		return sdk.BuildResult{}, err
	}
	raw, err := recvResult(s, ev)
	if err != nil {
		return sdk.BuildResult{}, err
	}
	var r sdk.BuildResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return sdk.BuildResult{}, fmt.Errorf("decode build result: %w", err)
	}
	return r, nil
}

func (b buildClient) IsBuilt(ctx context.Context) (bool, error) {
	r, err := b.c.IsBuilt(ctx, &pb.Empty{})
	if err != nil {
		return false, err
	}
	return r.Built, wire.FromPBError(r.Error)
}

func (b buildClient) ExtensionPath(ctx context.Context) (string, error) {
	r, err := b.c.ExtensionPath(ctx, &pb.Empty{})
	if err != nil {
		return "", err
	}
	return r.Path, wire.FromPBError(r.Error)
}

// Watcher returns the plugin's watch lifecycle (the Build service's watch
// calls).
func (c *Conn) Watcher() sdk.Watcher { return watchClient{c.build} }

type watchClient struct{ c pb.BuildClient }

func (w watchClient) StartWatch(ctx context.Context) (sdk.WatchStatus, error) {
	r, err := w.c.StartWatch(ctx, &pb.Empty{})
	if err != nil {
		return sdk.WatchStatus{}, err
	}
	return fromPBWatchStatus(r.Status), wire.FromPBError(r.Error)
}

func (w watchClient) StopWatch(ctx context.Context) (sdk.WatchStatus, error) {
	r, err := w.c.StopWatch(ctx, &pb.Empty{})
	if err != nil {
		return sdk.WatchStatus{}, err
	}
	return fromPBWatchStatus(r.Status), wire.FromPBError(r.Error)
}

func (w watchClient) WaitReady(ctx context.Context, timeoutMs int64, ev sdk.Events) (sdk.Rebuild, error) {
	s, err := w.c.WaitReady(ctx, &pb.WaitReadyRequest{TimeoutMs: timeoutMs})
	if err != nil {
		return sdk.Rebuild{}, err
	}
	raw, err := recvResult(s, ev)
	if err != nil {
		return sdk.Rebuild{}, err
	}
	var r sdk.Rebuild
	if err := json.Unmarshal(raw, &r); err != nil {
		return sdk.Rebuild{}, fmt.Errorf("decode rebuild: %w", err)
	}
	return r, nil
}

type chainClient struct{ c pb.ChainClient }

func (c chainClient) Start(ctx context.Context, o sdk.ChainOptions) (sdk.ChainStatus, error) {
	r, err := c.c.Start(ctx, toPBChainOptions(o))
	if err != nil {
		return sdk.ChainStatus{}, err
	}
	return fromPBChainStatus(r.Status), wire.FromPBError(r.Error)
}

func (c chainClient) Stop(ctx context.Context) error {
	r, err := c.c.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

func (c chainClient) Status(ctx context.Context) (sdk.ChainStatus, error) {
	r, err := c.c.Status(ctx, &pb.Empty{})
	if err != nil {
		return sdk.ChainStatus{}, err
	}
	return fromPBChainStatus(r.Status), wire.FromPBError(r.Error)
}

func (c chainClient) Snapshot(ctx context.Context) (string, error) {
	r, err := c.c.Snapshot(ctx, &pb.Empty{})
	if err != nil {
		return "", err
	}
	return r.Id, wire.FromPBError(r.Error)
}

func (c chainClient) Revert(ctx context.Context, id string) error {
	r, err := c.c.Revert(ctx, &pb.RevertRequest{Id: id})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

func (c chainClient) SetBalance(ctx context.Context, address, wei string) error {
	r, err := c.c.SetBalance(ctx, &pb.SetBalanceRequest{Address: address, Wei: wei})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

func (c chainClient) Mine(ctx context.Context, blocks int) error {
	r, err := c.c.Mine(ctx, &pb.MineRequest{Blocks: int32(blocks)})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

type contractsClient struct{ c pb.ContractSeedingClient }

func (c contractsClient) Deploy(ctx context.Context, rpcURL, name string, o sdk.DeployOptions) (sdk.Deployment, error) {
	r, err := c.c.Deploy(ctx, &pb.DeployRequest{RpcUrl: rpcURL, Name: name, Options: toPBDeployOptions(o)})
	if err != nil {
		return sdk.Deployment{}, err
	}
	return fromPBDeployment(r.Deployment), wire.FromPBError(r.Error)
}

func (c contractsClient) DeployMany(ctx context.Context, rpcURL string, names []string, o sdk.DeployOptions) (sdk.DeployManyResult, error) {
	r, err := c.c.DeployMany(ctx, &pb.DeployManyRequest{RpcUrl: rpcURL, Names: names, Options: toPBDeployOptions(o)})
	if err != nil {
		return sdk.DeployManyResult{}, err
	}
	out := sdk.DeployManyResult{Deployed: fromPBDeployments(r.Deployed), Failed: []sdk.DeployFailure{}}
	for _, f := range r.Failed {
		out.Failed = append(out.Failed, sdk.DeployFailure{ContractName: f.ContractName, Error: f.Error})
	}
	return out, wire.FromPBError(r.Error)
}

func (c contractsClient) Deployed(ctx context.Context) ([]sdk.Deployment, error) {
	r, err := c.c.Deployed(ctx, &pb.Empty{})
	if err != nil {
		return nil, err
	}
	return fromPBDeployments(r.Deployments), wire.FromPBError(r.Error)
}

func (c contractsClient) Available(ctx context.Context) ([]string, error) {
	r, err := c.c.Available(ctx, &pb.Empty{})
	if err != nil {
		return nil, err
	}
	return r.Names, wire.FromPBError(r.Error)
}

func (c contractsClient) Clear(ctx context.Context) error {
	r, err := c.c.Clear(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

type fixtureClient struct{ c pb.FixtureClient }

func (f fixtureClient) Start(ctx context.Context, st sdk.WalletState, o sdk.FixtureOptions) (sdk.FixtureStatus, error) {
	r, err := f.c.Start(ctx, &pb.FixtureStartRequest{StateJson: st, Port: int32(o.Port), Contracts: o.Contracts, Origin: o.Origin})
	if err != nil {
		return sdk.FixtureStatus{}, err
	}
	return sdk.FixtureStatus{URL: r.Url, Port: int(r.Port), OriginPort: int(r.OriginPort), UnlockPassword: r.UnlockPassword}, wire.FromPBError(r.Error)
}

func (f fixtureClient) Forget(ctx context.Context, origin string) error {
	r, err := f.c.Forget(ctx, &pb.FixtureForgetRequest{Origin: origin})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

func (f fixtureClient) Stop(ctx context.Context) error {
	r, err := f.c.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

func (f fixtureClient) DefaultState(ctx context.Context, o sdk.StateOptions) (sdk.WalletState, error) {
	r, err := f.c.DefaultState(ctx, toPBStateOptions(o))
	if err != nil {
		return nil, err
	}
	return r.StateJson, wire.FromPBError(r.Error)
}

func (f fixtureClient) OnboardingState(ctx context.Context, o sdk.StateOptions) (sdk.WalletState, error) {
	r, err := f.c.OnboardingState(ctx, toPBStateOptions(o))
	if err != nil {
		return nil, err
	}
	return r.StateJson, wire.FromPBError(r.Error)
}

func (f fixtureClient) ResolvePreset(ctx context.Context, name string, o sdk.StateOptions) (sdk.WalletState, error) {
	r, err := f.c.ResolvePreset(ctx, &pb.ResolvePresetRequest{Name: name, Options: toPBStateOptions(o)})
	if err != nil {
		return nil, err
	}
	return r.StateJson, wire.FromPBError(r.Error)
}

type mockClient struct{ c pb.MockServerClient }

func (m mockClient) Start(ctx context.Context, o sdk.MockServerOptions) (sdk.MockServerStatus, error) {
	r, err := m.c.Start(ctx, &pb.MockServerOptions{Port: int32(o.Port)})
	if err != nil {
		return sdk.MockServerStatus{}, err
	}
	return fromPBMockStatus(r.Status), wire.FromPBError(r.Error)
}

func (m mockClient) Stop(ctx context.Context) error {
	r, err := m.c.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

func (m mockClient) IsRunning(ctx context.Context) (bool, error) {
	r, err := m.c.IsRunning(ctx, &pb.Empty{})
	if err != nil {
		return false, err
	}
	return r.Running, wire.FromPBError(r.Error)
}

func (m mockClient) Status(ctx context.Context) (sdk.MockServerStatus, error) {
	r, err := m.c.Status(ctx, &pb.Empty{})
	if err != nil {
		return sdk.MockServerStatus{}, err
	}
	return fromPBMockStatus(r.Status), wire.FromPBError(r.Error)
}

// Interface guards.
var (
	_ sdk.Builder        = buildClient{}
	_ sdk.Watcher        = watchClient{}
	_ sdk.Chain          = chainClient{}
	_ sdk.ContractSeeder = contractsClient{}
	_ sdk.Fixture        = fixtureClient{}
	_ sdk.MockServer     = mockClient{}
)

type stateSnapshotClient struct{ c pb.StateSnapshotClient }

func (s stateSnapshotClient) Probe(ctx context.Context) (sdk.StateProbe, error) {
	r, err := s.c.Probe(ctx, &pb.Empty{})
	if err != nil {
		return sdk.StateProbe{}, err
	}
	return sdk.StateProbe{Elements: r.Elements, Script: r.Script}, wire.FromPBError(r.Error)
}

func (s stateSnapshotClient) DetectScreen(ctx context.Context, page sdk.PageSnapshot) (string, error) {
	r, err := s.c.DetectScreen(ctx, toPBPage(page))
	if err != nil {
		return "", err
	}
	return r.Screen, wire.FromPBError(r.Error)
}

func (s stateSnapshotClient) State(ctx context.Context, page sdk.PageSnapshot, o sdk.SnapshotOptions) (sdk.WalletStatus, error) {
	r, err := s.c.State(ctx, &pb.StateRequest{Page: toPBPage(page), ExtensionId: o.ExtensionID, ChainId: o.ChainID})
	if err != nil {
		return sdk.WalletStatus{}, err
	}
	return sdk.WalletStatus{IsUnlocked: r.IsUnlocked, AccountAddress: r.AccountAddress, NetworkName: r.NetworkName,
		ChainID: r.ChainId, Balance: r.Balance, ErrorMessage: r.ErrorMessage}, wire.FromPBError(r.Error)
}

var _ sdk.StateSnapshotter = stateSnapshotClient{}

func toPBPage(p sdk.PageSnapshot) *pb.PageSnapshot {
	els := make(map[string]*pb.ElementProbe, len(p.Elements))
	for k, e := range p.Elements {
		els[k] = &pb.ElementProbe{Present: e.Present, Text: e.Text}
	}
	return &pb.PageSnapshot{Url: p.URL, Role: p.Role, Elements: els, AppStateJson: p.AppState}
}
