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

func (b builder) Build(ctx context.Context, o sdk.BuildOptions, ev sdk.Events) (sdk.BuildResult, error) {
	return use(ctx, b.m, sdk.CapBuild, func(c *pluginhost.Conn) (sdk.BuildResult, error) { return c.Builder().Build(ctx, o, ev) })
}

func (b builder) IsBuilt(ctx context.Context) (bool, error) {
	return use(ctx, b.m, sdk.CapBuild, func(c *pluginhost.Conn) (bool, error) { return c.Builder().IsBuilt(ctx) })
}

func (b builder) ExtensionPath(ctx context.Context) (string, error) {
	return use(ctx, b.m, sdk.CapBuild, func(c *pluginhost.Conn) (string, error) { return c.Builder().ExtensionPath(ctx) })
}

type watcher struct{ m user }

func (w watcher) StartWatch(ctx context.Context) (sdk.WatchStatus, error) {
	return use(ctx, w.m, sdk.CapBuildWatch, func(c *pluginhost.Conn) (sdk.WatchStatus, error) { return c.Watcher().StartWatch(ctx) })
}

func (w watcher) WaitReady(ctx context.Context, timeoutMs int64, ev sdk.Events) (sdk.Rebuild, error) {
	return use(ctx, w.m, sdk.CapBuildWatch, func(c *pluginhost.Conn) (sdk.Rebuild, error) { return c.Watcher().WaitReady(ctx, timeoutMs, ev) })
}

func (w watcher) StopWatch(ctx context.Context) (sdk.WatchStatus, error) {
	return use(ctx, w.m, sdk.CapBuildWatch, func(c *pluginhost.Conn) (sdk.WatchStatus, error) { return c.Watcher().StopWatch(ctx) })
}

type chain struct{ m user }

func (ch chain) Start(ctx context.Context, o sdk.ChainOptions) (sdk.ChainStatus, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.ChainStatus, error) { return c.Chain().Start(ctx, o) })
}

func (ch chain) Stop(ctx context.Context) error {
	return ch.m.Use(ctx, sdk.CapChain, func(c *pluginhost.Conn) error { return c.Chain().Stop(ctx) })
}

func (ch chain) Status(ctx context.Context) (sdk.ChainStatus, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (sdk.ChainStatus, error) { return c.Chain().Status(ctx) })
}

func (ch chain) Snapshot(ctx context.Context) (string, error) {
	return use(ctx, ch.m, sdk.CapChain, func(c *pluginhost.Conn) (string, error) { return c.Chain().Snapshot(ctx) })
}

func (ch chain) Revert(ctx context.Context, id string) error {
	return ch.m.Use(ctx, sdk.CapChain, func(c *pluginhost.Conn) error { return c.Chain().Revert(ctx, id) })
}

func (ch chain) SetBalance(ctx context.Context, address, wei string) error {
	return ch.m.Use(ctx, sdk.CapChain, func(c *pluginhost.Conn) error { return c.Chain().SetBalance(ctx, address, wei) })
}

func (ch chain) Mine(ctx context.Context, blocks int) error {
	return ch.m.Use(ctx, sdk.CapChain, func(c *pluginhost.Conn) error { return c.Chain().Mine(ctx, blocks) })
}

type fixture struct{ m user }

func (f fixture) Start(ctx context.Context, st sdk.WalletState, o sdk.FixtureOptions) (sdk.FixtureStatus, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.FixtureStatus, error) { return c.Fixture().Start(ctx, st, o) })
}

func (f fixture) Stop(ctx context.Context) error {
	return f.m.Use(ctx, sdk.CapFixture, func(c *pluginhost.Conn) error { return c.Fixture().Stop(ctx) })
}

func (f fixture) Forget(ctx context.Context, origin string) error {
	return f.m.Use(ctx, sdk.CapFixture, func(c *pluginhost.Conn) error { return c.Fixture().Forget(ctx, origin) })
}

func (f fixture) DefaultState(ctx context.Context, o sdk.StateOptions) (sdk.WalletState, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.WalletState, error) { return c.Fixture().DefaultState(ctx, o) })
}

func (f fixture) OnboardingState(ctx context.Context, o sdk.StateOptions) (sdk.WalletState, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.WalletState, error) { return c.Fixture().OnboardingState(ctx, o) })
}

func (f fixture) ResolvePreset(ctx context.Context, name string, o sdk.StateOptions) (sdk.WalletState, error) {
	return use(ctx, f.m, sdk.CapFixture, func(c *pluginhost.Conn) (sdk.WalletState, error) { return c.Fixture().ResolvePreset(ctx, name, o) })
}

type seeder struct{ m user }

func (s seeder) Deploy(ctx context.Context, rpcURL, name string, o sdk.DeployOptions) (sdk.Deployment, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.Deployment, error) {
		return c.ContractSeeder().Deploy(ctx, rpcURL, name, o)
	})
}

func (s seeder) DeployMany(ctx context.Context, rpcURL string, names []string, o sdk.DeployOptions) (sdk.DeployManyResult, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) (sdk.DeployManyResult, error) {
		return c.ContractSeeder().DeployMany(ctx, rpcURL, names, o)
	})
}

func (s seeder) Deployed(ctx context.Context) ([]sdk.Deployment, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) ([]sdk.Deployment, error) { return c.ContractSeeder().Deployed(ctx) })
}

func (s seeder) Available(ctx context.Context) ([]string, error) {
	return use(ctx, s.m, sdk.CapContractSeeding, func(c *pluginhost.Conn) ([]string, error) { return c.ContractSeeder().Available(ctx) })
}

func (s seeder) Clear(ctx context.Context) error {
	return s.m.Use(ctx, sdk.CapContractSeeding, func(c *pluginhost.Conn) error { return c.ContractSeeder().Clear(ctx) })
}

// StateSnapshot is the state snapshot capability (screens and wallet state
// for another wallet or version).
func (m *Manager) StateSnapshot() sdk.StateSnapshotter { return stateSnapshot{m} }

type stateSnapshot struct{ m user }

func (s stateSnapshot) Probe(ctx context.Context) (sdk.StateProbe, error) {
	return use(ctx, s.m, sdk.CapStateSnapshot, func(c *pluginhost.Conn) (sdk.StateProbe, error) { return c.StateSnapshot().Probe(ctx) })
}

func (s stateSnapshot) DetectScreen(ctx context.Context, page sdk.PageSnapshot) (string, error) {
	return use(ctx, s.m, sdk.CapStateSnapshot, func(c *pluginhost.Conn) (string, error) { return c.StateSnapshot().DetectScreen(ctx, page) })
}

func (s stateSnapshot) State(ctx context.Context, page sdk.PageSnapshot, o sdk.SnapshotOptions) (sdk.WalletStatus, error) {
	return use(ctx, s.m, sdk.CapStateSnapshot, func(c *pluginhost.Conn) (sdk.WalletStatus, error) { return c.StateSnapshot().State(ctx, page, o) })
}

type mockServer struct{ m user }

func (ms mockServer) Start(ctx context.Context, o sdk.MockServerOptions) (sdk.MockServerStatus, error) {
	return use(ctx, ms.m, sdk.CapMockServer, func(c *pluginhost.Conn) (sdk.MockServerStatus, error) { return c.MockServer().Start(ctx, o) })
}

func (ms mockServer) Stop(ctx context.Context) error {
	return ms.m.Use(ctx, sdk.CapMockServer, func(c *pluginhost.Conn) error { return c.MockServer().Stop(ctx) })
}

func (ms mockServer) IsRunning(ctx context.Context) (bool, error) {
	return use(ctx, ms.m, sdk.CapMockServer, func(c *pluginhost.Conn) (bool, error) { return c.MockServer().IsRunning(ctx) })
}

func (ms mockServer) Status(ctx context.Context) (sdk.MockServerStatus, error) {
	return use(ctx, ms.m, sdk.CapMockServer, func(c *pluginhost.Conn) (sdk.MockServerStatus, error) { return c.MockServer().Status(ctx) })
}
