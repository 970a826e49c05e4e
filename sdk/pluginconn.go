package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
)

// Description is what a plugin says about itself.
type Description struct {
	Info
	APIVersion   int          `json:"apiVersion"`
	Capabilities []Capability `json:"capabilities"`
	Tools        []Tool       `json:"tools"`
}

// Has reports whether the plugin declared capability c.
func (d Description) Has(c Capability) bool {
	for _, x := range d.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// PluginConn is the host's half of the protocol: one connection to one plugin.
// Its capability accessors return the Go-native interfaces, so the host
// (and tests through plugintest) use a remote plugin exactly like a local
// one. A domain failure comes back as *Error; any other error means the
// plugin or the connection failed.
type PluginConn struct {
	base      pb.PluginClient
	tools     pb.ToolsClient
	build     pb.BuildClient
	chain     pb.ChainClient
	contracts pb.ContractSeedingClient
	fixture   pb.FixtureClient
	state     pb.StateSnapshotClient
	mock      pb.MockServerClient
}

func newPluginConn(c *grpc.ClientConn) *PluginConn {
	return &PluginConn{
		base:      pb.NewPluginClient(c),
		tools:     pb.NewToolsClient(c),
		build:     pb.NewBuildClient(c),
		chain:     pb.NewChainClient(c),
		contracts: pb.NewContractSeedingClient(c),
		fixture:   pb.NewFixtureClient(c),
		state:     pb.NewStateSnapshotClient(c),
		mock:      pb.NewMockServerClient(c),
	}
}

// Describe asks the plugin for its name, capabilities and tools.
func (c *PluginConn) Describe(ctx context.Context) (Description, error) {
	r, err := c.base.Describe(ctx, &pb.Empty{})
	if err != nil {
		return Description{}, err
	}
	d := Description{Info: Info{Name: r.Name, Version: r.Version}, APIVersion: int(r.ApiVersion)}
	for _, cp := range r.Capabilities {
		d.Capabilities = append(d.Capabilities, Capability(cp))
	}
	for _, t := range r.Tools {
		d.Tools = append(d.Tools, Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchemaJson})
	}
	return d, nil
}

// Configure hands the plugin its configuration.
func (c *PluginConn) Configure(ctx context.Context, cfg Config) error {
	r, err := c.base.Configure(ctx, &pb.ConfigureRequest{Workspace: cfg.Workspace,
		ArtifactsDir: cfg.ArtifactsDir, LogLevel: cfg.LogLevel, SettingsJson: cfg.Settings})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

// Stop asks the plugin to cancel its work and release its children.
func (c *PluginConn) Stop(ctx context.Context) error {
	r, err := c.base.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

// CallTool runs one of the plugin's tools, forwarding its events to ev (may
// be nil). The result is the tool's JSON value.
func (c *PluginConn) CallTool(ctx context.Context, name string, args json.RawMessage, ev Events) (json.RawMessage, error) {
	s, err := c.tools.CallTool(ctx, &pb.CallToolRequest{Name: name, ArgsJson: args})
	if err == nil {
		var out json.RawMessage
		out, err = recvResult(s, ev)
		if err == nil {
			return out, nil
		}
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.ResourceExhausted {
		// A message over gRPC's size limit (4 MB by default) on either side.
		return nil, Errorf(CodeInvalidInput, "%s: the call (arguments of %d bytes) or its result is larger than the plugin protocol's message limit; send smaller arguments", name, len(args)).
			WithDetails(map[string]any{"argumentBytes": len(args)})
	}
	return nil, err
}

// eventStream is the receive half shared by every streaming call.
type eventStream interface {
	Recv() (*pb.Event, error)
}

// errNoResult means a stream ended without its result event: the plugin
// died or broke the protocol.
var errNoResult = errors.New("plugin stream ended without a result")

func recvResult(s eventStream, ev Events) (json.RawMessage, error) {
	if ev == nil {
		ev = NopEvents{}
	}
	for {
		e, err := s.Recv()
		if err == io.EOF {
			return nil, errNoResult
		}
		if err != nil {
			return nil, err
		}
		switch k := e.Kind.(type) {
		case *pb.Event_Progress:
			ev.Progress(k.Progress.Done, k.Progress.Total, k.Progress.Message)
		case *pb.Event_Log:
			ev.Log(k.Log.Level, k.Log.Message)
		case *pb.Event_Result:
			if err := fromPBError(k.Result.Error); err != nil {
				return nil, err
			}
			return k.Result.Json, nil
		}
	}
}

// Builder returns the plugin's Build capability.
func (c *PluginConn) Builder() Builder { return buildClient{c.build} }

// Chain returns the plugin's Chain capability.
func (c *PluginConn) Chain() Chain { return chainClient{c.chain} }

// ContractSeeder returns the plugin's ContractSeeding capability.
func (c *PluginConn) ContractSeeder() ContractSeeder { return contractsClient{c.contracts} }

// Fixture returns the plugin's Fixture capability.
func (c *PluginConn) Fixture() Fixture { return fixtureClient{c.fixture} }

// StateSnapshot returns the plugin's StateSnapshot capability.
func (c *PluginConn) StateSnapshot() StateSnapshotter { return stateSnapshotClient{c.state} }

// MockServer returns the plugin's MockServer capability.
func (c *PluginConn) MockServer() MockServer { return mockClient{c.mock} }

type buildClient struct{ c pb.BuildClient }

func (b buildClient) Build(ctx context.Context, o BuildOptions, ev Events) (BuildResult, error) {
	s, err := b.c.Build(ctx, &pb.BuildRequest{BuildType: o.BuildType, Force: o.Force})
	if err != nil {
		return BuildResult{}, err
	}
	raw, err := recvResult(s, ev)
	if err != nil {
		return BuildResult{}, err
	}
	var r BuildResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return BuildResult{}, fmt.Errorf("decode build result: %w", err)
	}
	return r, nil
}

func (b buildClient) IsBuilt(ctx context.Context) (bool, error) {
	r, err := b.c.IsBuilt(ctx, &pb.Empty{})
	if err != nil {
		return false, err
	}
	return r.Built, fromPBError(r.Error)
}

func (b buildClient) ExtensionPath(ctx context.Context) (string, error) {
	r, err := b.c.ExtensionPath(ctx, &pb.Empty{})
	if err != nil {
		return "", err
	}
	return r.Path, fromPBError(r.Error)
}

// Watcher returns the plugin's watch lifecycle (the Build service's watch
// calls).
func (c *PluginConn) Watcher() Watcher { return watchClient{c.build} }

type watchClient struct{ c pb.BuildClient }

func (w watchClient) StartWatch(ctx context.Context) (WatchStatus, error) {
	r, err := w.c.StartWatch(ctx, &pb.Empty{})
	if err != nil {
		return WatchStatus{}, err
	}
	return fromPBWatchStatus(r.Status), fromPBError(r.Error)
}

func (w watchClient) StopWatch(ctx context.Context) (WatchStatus, error) {
	r, err := w.c.StopWatch(ctx, &pb.Empty{})
	if err != nil {
		return WatchStatus{}, err
	}
	return fromPBWatchStatus(r.Status), fromPBError(r.Error)
}

func (w watchClient) WaitReady(ctx context.Context, timeoutMs int64, ev Events) (Rebuild, error) {
	s, err := w.c.WaitReady(ctx, &pb.WaitReadyRequest{TimeoutMs: timeoutMs})
	if err != nil {
		return Rebuild{}, err
	}
	raw, err := recvResult(s, ev)
	if err != nil {
		return Rebuild{}, err
	}
	var r Rebuild
	if err := json.Unmarshal(raw, &r); err != nil {
		return Rebuild{}, fmt.Errorf("decode rebuild: %w", err)
	}
	return r, nil
}

type chainClient struct{ c pb.ChainClient }

func (c chainClient) Start(ctx context.Context, o ChainOptions) (ChainStatus, error) {
	r, err := c.c.Start(ctx, toPBChainOptions(o))
	if err != nil {
		return ChainStatus{}, err
	}
	return fromPBChainStatus(r.Status), fromPBError(r.Error)
}

func (c chainClient) Stop(ctx context.Context) error {
	r, err := c.c.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

func (c chainClient) Status(ctx context.Context) (ChainStatus, error) {
	r, err := c.c.Status(ctx, &pb.Empty{})
	if err != nil {
		return ChainStatus{}, err
	}
	return fromPBChainStatus(r.Status), fromPBError(r.Error)
}

func (c chainClient) Snapshot(ctx context.Context) (string, error) {
	r, err := c.c.Snapshot(ctx, &pb.Empty{})
	if err != nil {
		return "", err
	}
	return r.Id, fromPBError(r.Error)
}

func (c chainClient) Revert(ctx context.Context, id string) error {
	r, err := c.c.Revert(ctx, &pb.RevertRequest{Id: id})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

func (c chainClient) SetBalance(ctx context.Context, address, wei string) error {
	r, err := c.c.SetBalance(ctx, &pb.SetBalanceRequest{Address: address, Wei: wei})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

func (c chainClient) Mine(ctx context.Context, blocks int) error {
	r, err := c.c.Mine(ctx, &pb.MineRequest{Blocks: int32(blocks)})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

type contractsClient struct{ c pb.ContractSeedingClient }

func (c contractsClient) Deploy(ctx context.Context, rpcURL, name string, o DeployOptions) (Deployment, error) {
	r, err := c.c.Deploy(ctx, &pb.DeployRequest{RpcUrl: rpcURL, Name: name, Options: toPBDeployOptions(o)})
	if err != nil {
		return Deployment{}, err
	}
	return fromPBDeployment(r.Deployment), fromPBError(r.Error)
}

func (c contractsClient) DeployMany(ctx context.Context, rpcURL string, names []string, o DeployOptions) (DeployManyResult, error) {
	r, err := c.c.DeployMany(ctx, &pb.DeployManyRequest{RpcUrl: rpcURL, Names: names, Options: toPBDeployOptions(o)})
	if err != nil {
		return DeployManyResult{}, err
	}
	out := DeployManyResult{Deployed: fromPBDeployments(r.Deployed), Failed: []DeployFailure{}}
	for _, f := range r.Failed {
		out.Failed = append(out.Failed, DeployFailure{ContractName: f.ContractName, Error: f.Error})
	}
	return out, fromPBError(r.Error)
}

func (c contractsClient) Deployed(ctx context.Context) ([]Deployment, error) {
	r, err := c.c.Deployed(ctx, &pb.Empty{})
	if err != nil {
		return nil, err
	}
	return fromPBDeployments(r.Deployments), fromPBError(r.Error)
}

func (c contractsClient) Available(ctx context.Context) ([]string, error) {
	r, err := c.c.Available(ctx, &pb.Empty{})
	if err != nil {
		return nil, err
	}
	return r.Names, fromPBError(r.Error)
}

func (c contractsClient) Clear(ctx context.Context) error {
	r, err := c.c.Clear(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

type fixtureClient struct{ c pb.FixtureClient }

func (f fixtureClient) Start(ctx context.Context, st WalletState, o FixtureOptions) (FixtureStatus, error) {
	r, err := f.c.Start(ctx, &pb.FixtureStartRequest{StateJson: st, Port: int32(o.Port), Contracts: o.Contracts, Origin: o.Origin})
	if err != nil {
		return FixtureStatus{}, err
	}
	return FixtureStatus{URL: r.Url, Port: int(r.Port), OriginPort: int(r.OriginPort), UnlockPassword: r.UnlockPassword}, fromPBError(r.Error)
}

func (f fixtureClient) Forget(ctx context.Context, origin string) error {
	r, err := f.c.Forget(ctx, &pb.FixtureForgetRequest{Origin: origin})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

func (f fixtureClient) Stop(ctx context.Context) error {
	r, err := f.c.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

func (f fixtureClient) DefaultState(ctx context.Context, o StateOptions) (WalletState, error) {
	r, err := f.c.DefaultState(ctx, toPBStateOptions(o))
	if err != nil {
		return nil, err
	}
	return r.StateJson, fromPBError(r.Error)
}

func (f fixtureClient) OnboardingState(ctx context.Context, o StateOptions) (WalletState, error) {
	r, err := f.c.OnboardingState(ctx, toPBStateOptions(o))
	if err != nil {
		return nil, err
	}
	return r.StateJson, fromPBError(r.Error)
}

func (f fixtureClient) ResolvePreset(ctx context.Context, name string, o StateOptions) (WalletState, error) {
	r, err := f.c.ResolvePreset(ctx, &pb.ResolvePresetRequest{Name: name, Options: toPBStateOptions(o)})
	if err != nil {
		return nil, err
	}
	return r.StateJson, fromPBError(r.Error)
}

type mockClient struct{ c pb.MockServerClient }

func (m mockClient) Start(ctx context.Context, o MockServerOptions) (MockServerStatus, error) {
	r, err := m.c.Start(ctx, &pb.MockServerOptions{Port: int32(o.Port)})
	if err != nil {
		return MockServerStatus{}, err
	}
	return fromPBMockStatus(r.Status), fromPBError(r.Error)
}

func (m mockClient) Stop(ctx context.Context) error {
	r, err := m.c.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return fromPBError(r.Error)
}

func (m mockClient) IsRunning(ctx context.Context) (bool, error) {
	r, err := m.c.IsRunning(ctx, &pb.Empty{})
	if err != nil {
		return false, err
	}
	return r.Running, fromPBError(r.Error)
}

func (m mockClient) Status(ctx context.Context) (MockServerStatus, error) {
	r, err := m.c.Status(ctx, &pb.Empty{})
	if err != nil {
		return MockServerStatus{}, err
	}
	return fromPBMockStatus(r.Status), fromPBError(r.Error)
}

// Interface guards.
var (
	_ Builder        = buildClient{}
	_ Watcher        = watchClient{}
	_ Chain          = chainClient{}
	_ ContractSeeder = contractsClient{}
	_ Fixture        = fixtureClient{}
	_ MockServer     = mockClient{}
)
