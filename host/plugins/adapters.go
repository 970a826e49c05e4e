package plugins

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// The typed adapters: each capability as its sdk interface, every call going
// through Use (so a missing capability is MM_CAPABILITY_MISSING, a plugin that
// dies during the call is MM_PLUGIN_CRASHED and is relaunched next time).

// Has reports whether a working plugin provides c.
func (m *Manager) Has(c sdk.Capability) bool { return m.ByCapability(c) != nil }

// Builder is the build capability.
func (m *Manager) Builder() sdk.Builder { return builder{m} }

// Watcher is the build capability's watch lifecycle.
func (m *Manager) Watcher() sdk.Watcher { return watcher{m} }

// Chain is the chain capability.
func (m *Manager) Chain() sdk.Chain { return chain{m} }

// Fixture is the fixture capability.
func (m *Manager) Fixture() sdk.Fixture { return fixture{m} }

// ContractSeeder is the contract seeding capability.
func (m *Manager) ContractSeeder() sdk.ContractSeeder { return seeder{m} }

// MockServer is the mock server capability.
func (m *Manager) MockServer() sdk.MockServer { return mockServer{m} }

// user runs a call on the plugin providing a capability: the Manager (slot
// 0) or a Slot.
type user interface {
	Use(ctx context.Context, c sdk.Capability, fn func(*pluginhost.Conn) error) error
}

// use runs fn on the plugin providing c and returns its value.
func use[T any](ctx context.Context, m user, c sdk.Capability, fn func(*pluginhost.Conn) (T, error)) (T, error) {
	var v T
	err := m.Use(ctx, c, func(cl *pluginhost.Conn) error {
		var err error
		v, err = fn(cl)
		return err
	})
	return v, err
}

type builder struct{ m user }

func (b builder) Build(ctx context.Context, req sdk.BuildRequest, ev sdk.Events) (sdk.BuildResponse, error) {
	return use(ctx, b.m, sdk.CapBuild, func(c *pluginhost.Conn) (sdk.BuildResponse, error) { return c.Builder().Build(ctx, req, ev) })
}

func (b builder) IsBuilt(ctx context.Context, req sdk.IsBuiltRequest) (sdk.IsBuiltResponse, error) {
	return use(ctx, b.m, sdk.CapBuild, func(c *pluginhost.Conn) (sdk.IsBuiltResponse, error) { return c.Builder().IsBuilt(ctx, req) })
}

func (b builder) ExtensionPath(ctx context.Context, req sdk.ExtensionPathRequest) (sdk.ExtensionPathResponse, error) {
	return use(ctx, b.m, sdk.CapBuild, func(c *pluginhost.Conn) (sdk.ExtensionPathResponse, error) {
		return c.Builder().ExtensionPath(ctx, req)
	})
}

type watcher struct{ m user }

func (w watcher) StartWatch(ctx context.Context, req sdk.StartWatchRequest) (sdk.StartWatchResponse, error) {
	return use(ctx, w.m, sdk.CapBuildWatch, func(c *pluginhost.Conn) (sdk.StartWatchResponse, error) { return c.Watcher().StartWatch(ctx, req) })
}

func (w watcher) WaitReady(ctx context.Context, req sdk.WaitReadyRequest, ev sdk.Events) (sdk.WaitReadyResponse, error) {
	return use(ctx, w.m, sdk.CapBuildWatch, func(c *pluginhost.Conn) (sdk.WaitReadyResponse, error) { return c.Watcher().WaitReady(ctx, req, ev) })
}

func (w watcher) StopWatch(ctx context.Context, req sdk.StopWatchRequest) (sdk.StopWatchResponse, error) {
	return use(ctx, w.m, sdk.CapBuildWatch, func(c *pluginhost.Conn) (sdk.StopWatchResponse, error) { return c.Watcher().StopWatch(ctx, req) })
}

type chain struct{ m user }

func (ch chain) StartChain(ctx context.Context, req sdk.StartChainRequest) (sdk.StartChainResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.StartChainResponse, error) { return c.Chain().StartChain(ctx, req) })
}

func (ch chain) StopChain(ctx context.Context, req sdk.StopChainRequest) (sdk.StopChainResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.StopChainResponse, error) { return c.Chain().StopChain(ctx, req) })
}

func (ch chain) ChainStatus(ctx context.Context, req sdk.ChainStatusRequest) (sdk.ChainStatusResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.ChainStatusResponse, error) { return c.Chain().ChainStatus(ctx, req) })
}

func (ch chain) Snapshot(ctx context.Context, req sdk.SnapshotRequest) (sdk.SnapshotResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.SnapshotResponse, error) { return c.Chain().Snapshot(ctx, req) })
}

func (ch chain) Revert(ctx context.Context, req sdk.RevertRequest) (sdk.RevertResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.RevertResponse, error) { return c.Chain().Revert(ctx, req) })
}

func (ch chain) SetBalance(ctx context.Context, req sdk.SetBalanceRequest) (sdk.SetBalanceResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.SetBalanceResponse, error) { return c.Chain().SetBalance(ctx, req) })
}

func (ch chain) Mine(ctx context.Context, req sdk.MineRequest) (sdk.MineResponse, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.MineResponse, error) { return c.Chain().Mine(ctx, req) })
}

type fixture struct{ m user }

func (f fixture) StartFixture(ctx context.Context, req sdk.StartFixtureRequest) (sdk.StartFixtureResponse, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.StartFixtureResponse, error) { return c.Fixture().StartFixture(ctx, req) })
}

func (f fixture) StopFixture(ctx context.Context, req sdk.StopFixtureRequest) (sdk.StopFixtureResponse, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.StopFixtureResponse, error) { return c.Fixture().StopFixture(ctx, req) })
}

func (f fixture) Forget(ctx context.Context, req sdk.ForgetRequest) (sdk.ForgetResponse, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.ForgetResponse, error) { return c.Fixture().Forget(ctx, req) })
}

func (f fixture) DefaultState(ctx context.Context, req sdk.DefaultStateRequest) (sdk.DefaultStateResponse, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.DefaultStateResponse, error) { return c.Fixture().DefaultState(ctx, req) })
}

func (f fixture) OnboardingState(ctx context.Context, req sdk.OnboardingStateRequest) (sdk.OnboardingStateResponse, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.OnboardingStateResponse, error) {
		return c.Fixture().OnboardingState(ctx, req)
	})
}

func (f fixture) ResolvePreset(ctx context.Context, req sdk.ResolvePresetRequest) (sdk.ResolvePresetResponse, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.ResolvePresetResponse, error) {
		return c.Fixture().ResolvePreset(ctx, req)
	})
}

type seeder struct{ m user }

func (s seeder) Deploy(ctx context.Context, req sdk.DeployRequest) (sdk.DeployResponse, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.DeployResponse, error) { return c.ContractSeeder().Deploy(ctx, req) })
}

func (s seeder) DeployMany(ctx context.Context, req sdk.DeployManyRequest) (sdk.DeployManyResponse, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.DeployManyResponse, error) {
		return c.ContractSeeder().DeployMany(ctx, req)
	})
}

func (s seeder) Deployed(ctx context.Context, req sdk.DeployedRequest) (sdk.DeployedResponse, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.DeployedResponse, error) { return c.ContractSeeder().Deployed(ctx, req) })
}

func (s seeder) Available(ctx context.Context, req sdk.AvailableRequest) (sdk.AvailableResponse, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.AvailableResponse, error) {
		return c.ContractSeeder().Available(ctx, req)
	})
}

func (s seeder) Clear(ctx context.Context, req sdk.ClearRequest) (sdk.ClearResponse, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.ClearResponse, error) { return c.ContractSeeder().Clear(ctx, req) })
}

// StateSnapshot is the state snapshot capability (screens and wallet state
// for another wallet or version).
func (m *Manager) StateSnapshot() sdk.StateSnapshotter { return stateSnapshot{m} }

type stateSnapshot struct{ m user }

func (s stateSnapshot) Probe(ctx context.Context, req sdk.ProbeRequest) (sdk.ProbeResponse, error) {
	return use(ctx, s.m, sdk.CapStateSnapshot, func(c *pluginhost.Conn) (sdk.ProbeResponse, error) { return c.StateSnapshot().Probe(ctx, req) })
}

func (s stateSnapshot) DetectScreen(ctx context.Context, req sdk.DetectScreenRequest) (sdk.DetectScreenResponse, error) {
	return use(ctx, s.m, sdk.CapStateSnapshot, func(c *pluginhost.Conn) (sdk.DetectScreenResponse, error) {
		return c.StateSnapshot().DetectScreen(ctx, req)
	})
}

func (s stateSnapshot) State(ctx context.Context, req sdk.StateRequest) (sdk.StateResponse, error) {
	return use(ctx, s.m, sdk.CapStateSnapshot, func(c *pluginhost.Conn) (sdk.StateResponse, error) { return c.StateSnapshot().State(ctx, req) })
}

type mockServer struct{ m user }

func (ms mockServer) StartMockServer(ctx context.Context, req sdk.StartMockServerRequest) (sdk.StartMockServerResponse, error) {
	return use(ctx, ms.m, sdk.CapMockServer, func(c *pluginhost.Conn) (sdk.StartMockServerResponse, error) {
		return c.MockServer().StartMockServer(ctx, req)
	})
}

func (ms mockServer) StopMockServer(ctx context.Context, req sdk.StopMockServerRequest) (sdk.StopMockServerResponse, error) {
	return use(ctx, ms.m, sdk.CapMockServer, func(c *pluginhost.Conn) (sdk.StopMockServerResponse, error) {
		return c.MockServer().StopMockServer(ctx, req)
	})
}

func (ms mockServer) MockServerStatus(ctx context.Context, req sdk.MockServerStatusRequest) (sdk.MockServerStatusResponse, error) {
	return use(ctx, ms.m, sdk.CapMockServer, func(c *pluginhost.Conn) (sdk.MockServerStatusResponse, error) {
		return c.MockServer().MockServerStatus(ctx, req)
	})
}
