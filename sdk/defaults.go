package sdk

import "strconv"

// The defaults host and plugins agree on: MetaMask's end-to-end test
// settings. Each lives here once; plugins, the host and the docs' flags
// read them from here.
const (
	// DefaultAnvilPort is the port of MetaMask's E2E Anvil, the RPC URL
	// (http://localhost:8545) the default wallet state points at.
	DefaultAnvilPort = 8545
	// DefaultChainID is the chain id of the "Localhost 8545" network.
	DefaultChainID int64 = 1337
	// DefaultHardfork is the EVM hardfork the local chain runs.
	DefaultHardfork = "prague"
	// DefaultFixturePort is where MetaMask test builds (and the test
	// wallet) fetch their state: http://localhost:12345/state.json. The
	// extension cannot be told another URL; a session whose state is
	// served elsewhere gets this port mapped in its Chrome.
	DefaultFixturePort = 12345
	// DefaultExtensionPath is where a MetaMask checkout's test build
	// lands, relative to the workspace: the build plugin's default, and
	// what mm_launch loads when no build plugin runs and no extensionPath
	// is given.
	DefaultExtensionPath = "dist/chrome"
	// FixtureVersion is the meta.version of the states mmcp builds, and of
	// a custom fixture given without one: the schema of migration 74,
	// which MetaMask's E2E fixtures still use. The extension migrates them
	// forward when it loads them.
	FixtureVersion = 74
)

// DefaultRPCURL is the local chain's RPC URL on DefaultAnvilPort.
var DefaultRPCURL = "http://127.0.0.1:" + strconv.Itoa(DefaultAnvilPort)

// Environment variables the built-in plugins read (host/config's table
// documents them).
const (
	// EnvAnvilPath names the Anvil binary the chain plugin starts.
	EnvAnvilPath = "ANVIL_PATH"
	// EnvNodeModules names a node_modules with Anvil and contract
	// artifacts, used when the workspace has none.
	EnvNodeModules = "MMCP_NODE_MODULES"
)
