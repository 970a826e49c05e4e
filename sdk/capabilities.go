package sdk

import (
	"context"
	"encoding/json"
)

// Builder is the Build capability (spec 001 BuildCapability).
type Builder interface {
	// Build runs the build. A failed build is an *Error with
	// CodeBuildFailed (details.tail holds the end of the output) or
	// CodeDependenciesMissing.
	Build(ctx context.Context, opts BuildOptions, ev Events) (BuildResult, error)
	// IsBuilt reports whether the extension build exists.
	IsBuilt(ctx context.Context) (bool, error)
	// ExtensionPath is the absolute path of the built extension.
	ExtensionPath(ctx context.Context) (string, error)
}

// BuildOptions are the inputs of mm_build.
type BuildOptions struct {
	BuildType string `json:"buildType"`
	Force     bool   `json:"force"`
}

// BuildResult is the outcome of a successful build.
type BuildResult struct {
	BuildType     string `json:"buildType"`
	ExtensionPath string `json:"extensionPath"`
	DurationMs    int64  `json:"durationMs"`
	// Skipped is true when the build existed and Force was false.
	Skipped bool `json:"skipped,omitempty"`
}

// Chain is the Chain capability (spec 001 ChainCapability) plus status,
// snapshots and a few Anvil helpers.
type Chain interface {
	// Start starts the node (or attaches to an external one) and returns
	// once it answers eth_blockNumber. A busy port is CodePortInUse.
	Start(ctx context.Context, opts ChainOptions) (ChainStatus, error)
	// Stop stops the node; the process is gone when it returns.
	Stop(ctx context.Context) error
	// Status reports whether the node runs and where.
	Status(ctx context.Context) (ChainStatus, error)
	// Snapshot takes an evm_snapshot and returns its id.
	Snapshot(ctx context.Context) (string, error)
	// Revert reverts to a snapshot id.
	Revert(ctx context.Context, id string) error
	// SetBalance sets an account's balance in wei (decimal or 0x hex).
	SetBalance(ctx context.Context, address, wei string) error
	// Mine mines n blocks.
	Mine(ctx context.Context, blocks int) error
}

// ChainOptions configure a node. Zero values mean MetaMask's defaults
// (port 8545, chain id 1337, the E2E mnemonic, 25 ETH, Prague) and automine
// (BlockTime 0: blocks are mined per transaction, which keeps seeding fast).
type ChainOptions struct {
	Port      int    `json:"port,omitempty"`
	ChainID   int64  `json:"chainId,omitempty"`
	Mnemonic  string `json:"mnemonic,omitempty"`
	Balance   int64  `json:"balance,omitempty"`
	Hardfork  string `json:"hardfork,omitempty"`
	BlockTime int    `json:"blockTime,omitempty"`
	// RPCURL attaches to an already running node instead of starting one.
	RPCURL string `json:"rpcUrl,omitempty"`
	// FreePort starts the node on a free loopback port the plugin picks
	// (Port is then ignored), so that several nodes run side by side;
	// ChainStatus.Port and RPCURL say which.
	FreePort bool `json:"freePort,omitempty"`
}

// ChainStatus describes the node.
type ChainStatus struct {
	Running     bool   `json:"running"`
	RPCURL      string `json:"rpcUrl,omitempty"`
	Port        int    `json:"port,omitempty"`
	ChainID     int64  `json:"chainId,omitempty"`
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	// External is true when the node was not started by the plugin.
	External bool `json:"external,omitempty"`
}

// ContractSeeder is the ContractSeeding capability (spec 001).
type ContractSeeder interface {
	// Deploy deploys one contract by name against rpcURL. An unknown
	// name is CodeInvalidInput with details.available listing the names.
	Deploy(ctx context.Context, rpcURL, name string, opts DeployOptions) (Deployment, error)
	// DeployMany deploys in order and goes on past a failure.
	DeployMany(ctx context.Context, rpcURL string, names []string, opts DeployOptions) (DeployManyResult, error)
	// Deployed lists this session's deployments, oldest first. Re-deploying
	// a name keeps both entries.
	Deployed(ctx context.Context) ([]Deployment, error)
	// Available lists the names that can be deployed.
	Available(ctx context.Context) ([]string, error)
	// Clear empties the registry (a new session).
	Clear(ctx context.Context) error
}

// DeployOptions are the options of mm_seed_contract.
type DeployOptions struct {
	Hardfork        string          `json:"hardfork,omitempty"`
	DeployerOptions DeployerOptions `json:"deployerOptions,omitempty"`
}

// DeployerOptions choose the deployer (default: the node's account 0).
type DeployerOptions struct {
	// FromAddress impersonates this address (anvil_impersonateAccount).
	FromAddress string `json:"fromAddress,omitempty"`
	// FromPrivateKey deploys from this key, funded first. Never logged.
	FromPrivateKey string `json:"fromPrivateKey,omitempty"`
}

// Deployment is one deployed contract.
type Deployment struct {
	ContractName    string `json:"contractName"`
	ContractAddress string `json:"contractAddress"`
	DeployedAt      string `json:"deployedAt"`
	TxHash          string `json:"txHash,omitempty"`
	BlockNumber     uint64 `json:"blockNumber,omitempty"`
	Deployer        string `json:"deployer,omitempty"`
}

// DeployFailure is one failed deploy of DeployMany.
type DeployFailure struct {
	ContractName string `json:"contractName"`
	Error        string `json:"error"`
}

// DeployManyResult is the outcome of DeployMany.
type DeployManyResult struct {
	Deployed []Deployment    `json:"deployed"`
	Failed   []DeployFailure `json:"failed"`
}

// Fixture is the Fixture capability (spec 001 FixtureCapability): it
// builds MetaMask wallet states and serves them at
// http://127.0.0.1:<port>/state.json, one server for every session: the
// default state, and one state per origin (a session's extension,
// chrome-extension://<id>).
type Fixture interface {
	// Start serves state (substituting __FIXTURE_SUBSTITUTION__ values) and
	// returns once GET /state.json answers. Without opts.Origin, state
	// becomes the default state; with it, the state of that origin, and
	// the other origins' states are left alone. The server starts on first
	// use. A busy port is CodePortInUse.
	Start(ctx context.Context, state WalletState, opts FixtureOptions) (FixtureStatus, error)
	// Forget drops origin's state and closes its FixtureStatus.OriginPort;
	// the server stops when no state is left. An unknown origin is not an
	// error.
	Forget(ctx context.Context, origin string) error
	// Stop stops the server and drops every state.
	Stop(ctx context.Context) error
	// DefaultState is the onboarded default wallet.
	DefaultState(ctx context.Context, opts StateOptions) (WalletState, error)
	// OnboardingState is a wallet with no vault.
	OnboardingState(ctx context.Context, opts StateOptions) (WalletState, error)
	// ResolvePreset builds a named preset. An unknown name is
	// CodeInvalidConfig with details.available listing the presets.
	ResolvePreset(ctx context.Context, name string, opts StateOptions) (WalletState, error)
}

// WalletState is a whole fixture: {"data": {...}, "meta": {...}}.
type WalletState = json.RawMessage

// StateOptions parameterize the built states.
type StateOptions struct {
	// AnvilPort is the port of the local chain (RPC URL
	// http://localhost:<port>); 0 means 8545.
	AnvilPort int `json:"anvilPort,omitempty"`
	// ChainID of the local chain; 0 means 1337.
	ChainID int64 `json:"chainId,omitempty"`
}

// FixtureOptions configure the server.
type FixtureOptions struct {
	// Port to listen on; 0 means 12345.
	Port int `json:"port,omitempty"`
	// Contracts maps contract names to deployed addresses for the
	// __FIXTURE_SUBSTITUTION__CONTRACT<name> substitution.
	Contracts map[string]string `json:"contracts,omitempty"`
	// Origin is the requesting origin this state is for
	// ("chrome-extension://<id>"); empty means the default state. GET
	// /state.json answers the state of the request's Origin header, else
	// the default state, else the only state when there is one, else 404.
	Origin string `json:"origin,omitempty"`
}

// FixtureStatus describes the running server.
type FixtureStatus struct {
	URL  string `json:"url"`
	Port int    `json:"port"`
	// OriginPort, when Start had an Origin, is a loopback port serving that
	// origin's state and nothing else, whatever the request's headers say.
	// A MetaMask extension's own fetch of its state carries no Origin
	// header (its host permissions cover localhost, so Chrome sends it
	// without CORS), so the host points that session's Chrome at this port
	// instead: --host-resolver-rules="MAP localhost:<Port>
	// 127.0.0.1:<OriginPort>".
	OriginPort int `json:"originPort,omitempty"`
	// UnlockPassword opens the served state's vault: the fixture plugin
	// built the vault, so it knows; the host unlocks the wallet with it
	// after the launch. Empty when the plugin does not know one (a custom
	// state of its caller's). Never serialized: it is a secret.
	UnlockPassword string `json:"-"`
}

// StateSnapshotter is the StateSnapshot capability (spec 001
// StateSnapshotCapability: getState, detectCurrentScreen). It teaches mmcp
// another wallet, or another version of MetaMask: it names the wallet's
// screens and reads its state from what the host read off a wallet page.
// Probe says what the host reads; the host calls DetectScreen and State on
// every state read (mm_get_state, every step record), so both must be
// quick and must not block. mmcp's built-in MetaMask profile is the
// default; a plugin declaring this capability replaces it.
type StateSnapshotter interface {
	// Probe says what the host reads from each wallet page. It is asked
	// once per session.
	Probe(ctx context.Context) (StateProbe, error)
	// DetectScreen names the page's screen ("home", "unlock", ... or any
	// name of the wallet's own); "unknown" when it cannot tell.
	DetectScreen(ctx context.Context, page PageSnapshot) (string, error)
	// State reads the wallet's state from page. Fields it cannot read
	// stay nil.
	State(ctx context.Context, page PageSnapshot, opts SnapshotOptions) (WalletStatus, error)
}

// StateProbe is what the host reads from every wallet page for a
// StateSnapshotter.
type StateProbe struct {
	// Elements maps a name to a CSS selector; PageSnapshot.Elements reports
	// under that name whether it matches and the first match's text.
	Elements map[string]string `json:"elements,omitempty"`
	// Script is a JavaScript expression the host evaluates in the page's
	// main world (the wallet's own JavaScript context); it may return a
	// promise. Its JSON value is PageSnapshot.AppState (null when it throws
	// or takes longer than a second). MetaMask's test builds answer
	// window.stateHooks.getCleanAppState() there.
	Script string `json:"script,omitempty"`
}

// PageSnapshot is what the host read from one wallet page.
type PageSnapshot struct {
	// URL is the page's URL (chrome-extension://<id>/home.html#/route).
	URL string `json:"url"`
	// Role is "extension" (the wallet's own tab) or "notification" (its
	// popup).
	Role string `json:"role"`
	// Elements holds every StateProbe element by name.
	Elements map[string]ElementProbe `json:"elements"`
	// AppState is the value of StateProbe.Script, or null.
	AppState json.RawMessage `json:"appState,omitempty"`
}

// ElementProbe is one StateProbe element on a page.
type ElementProbe struct {
	// Present is true when the selector matches.
	Present bool `json:"present"`
	// Text is the first match's visible text, trimmed, at most 200
	// characters.
	Text string `json:"text,omitempty"`
}

// SnapshotOptions are spec 001's StateOptions of getState.
type SnapshotOptions struct {
	// ExtensionID is the wallet extension's id.
	ExtensionID string `json:"extensionId"`
	// ChainID is the chain id the caller expects, 0 when it has none (the
	// host passes none: the wallet's own chain id is what State reads).
	ChainID int64 `json:"chainId,omitempty"`
}

// WalletStatus is the wallet's state as a StateSnapshotter reads it (the
// wallet fields of spec 000 ExtensionState). Nil fields are unknown.
type WalletStatus struct {
	IsUnlocked     *bool   `json:"isUnlocked,omitempty"`
	AccountAddress *string `json:"accountAddress,omitempty"`
	NetworkName    *string `json:"networkName,omitempty"`
	ChainID        *int64  `json:"chainId,omitempty"`
	Balance        *string `json:"balance,omitempty"`
	// ErrorMessage is the wallet's error text when the page shows its
	// error screen.
	ErrorMessage *string `json:"errorMessage,omitempty"`
}

// MockServer is the MockServer capability (spec 001 MockServerCapability):
// an HTTP and HTTPS forward proxy that answers a session's external
// requests from declared mocks and records every request. HTTPS goes
// through CONNECT and is answered with certificates minted by a
// certificate authority generated for the session; Chrome trusts that CA
// only through --ignore-certificate-errors-spki-list with SPKIHash.
type MockServer interface {
	// Start starts the proxy on a free loopback port (opts.Port when set)
	// with a fresh certificate authority and returns where it listens. A
	// proxy that already runs is replaced. A busy port is CodePortInUse.
	Start(ctx context.Context, opts MockServerOptions) (MockServerStatus, error)
	// Stop stops the proxy and forgets the certificate authority. It is
	// safe to call when nothing runs.
	Stop(ctx context.Context) error
	// IsRunning reports whether the proxy runs.
	IsRunning(ctx context.Context) (bool, error)
	// Status reports where the proxy listens (the seed's getServer and
	// getPort) and the hash Chrome needs to trust its certificates.
	Status(ctx context.Context) (MockServerStatus, error)
}

// MockServerOptions configure the proxy. Zero values mean the plugin's
// settings, then its defaults.
type MockServerOptions struct {
	// Port on 127.0.0.1; 0 means a free port.
	Port int `json:"port,omitempty"`
}

// MockServerStatus describes the proxy.
type MockServerStatus struct {
	Running bool `json:"running"`
	// Address is the proxy's host:port ("127.0.0.1:40123"); Chrome gets
	// --proxy-server=http://<Address>.
	Address string `json:"address,omitempty"`
	Port    int    `json:"port,omitempty"`
	// SPKIHash is the base64 SHA-256 of the session CA's
	// SubjectPublicKeyInfo, the value of Chrome's
	// --ignore-certificate-errors-spki-list.
	SPKIHash string `json:"spkiHash,omitempty"`
}
