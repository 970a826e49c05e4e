package sdk

import (
	"context"
	"encoding/json"
)

// APIVersion is the version of the mmcp plugin protocol. The host refuses a
// plugin whose Describe reports another major version.
const APIVersion = 1

// Capability names a typed service a plugin implements. The host looks
// plugins up by capability, not by name, so a team can replace a built-in
// by shipping a plugin that declares the same capability.
type Capability string

// The capabilities a plugin may declare.
const (
	CapBuild Capability = "build"
	// CapBuildWatch is the Build capability's watch lifecycle (Watcher).
	CapBuildWatch      Capability = "buildWatch"
	CapChain           Capability = "chain"
	CapFixture         Capability = "fixture"
	CapContractSeeding Capability = "contractSeeding"
	CapStateSnapshot   Capability = "stateSnapshot"
	CapMockServer      Capability = "mockServer"
	CapTools           Capability = "tools"
)

// Info describes a plugin. Capabilities need not be listed: Serve derives
// them from the interfaces the plugin implements.
type Info struct {
	// Name is the plugin's short name, e.g. "chain". Custom tools are
	// exposed to agents as <Name>_<tool>.
	Name string `json:"name"`
	// Version is the plugin's own version string.
	Version string `json:"version"`
}

// Config is what the host hands a plugin before any other call.
type Config struct {
	// Workspace is the absolute path of the workspace (the extension
	// checkout); every relative path is resolved against it.
	Workspace string `json:"workspace"`
	// ArtifactsDir is where the plugin may write files.
	ArtifactsDir string `json:"artifactsDir"`
	// LogLevel is an hclog level name ("debug", "info", ...).
	LogLevel string `json:"logLevel"`
	// Settings is the plugin's own section of the config, as JSON.
	Settings json.RawMessage `json:"settings,omitempty"`
}

// Plugin is the one interface every plugin implements. Everything else is
// optional and found by type assertion: Builder, Watcher, Chain, Fixture,
// ContractSeeder, MockServer, StateSnapshotter, ToolProvider.
type Plugin interface {
	// Info names the plugin.
	Info() Info
	// Configure is called once after start, before any capability call.
	Configure(ctx context.Context, cfg Config) error
	// Stop cancels running work and releases child processes. It must be
	// safe to call more than once.
	Stop(ctx context.Context) error
}

// Events receives progress and log lines from long-running calls. It is
// never nil inside a plugin method: Serve passes a no-op when the caller does
// not listen.
type Events interface {
	// Progress reports done of total (total 0 when unknown).
	Progress(done, total float64, message string)
	// Log forwards one line of output (a build's stdout, say) to the host's
	// log at the given hclog level name.
	Log(level, message string)
}

// NopEvents discards everything.
type NopEvents struct{}

// Progress implements Events.
func (NopEvents) Progress(float64, float64, string) {}

// Log implements Events.
func (NopEvents) Log(string, string) {}

// Tool is an MCP tool a plugin contributes. The host exposes it as
// <plugin>_<Name> and validates calls against InputSchema before they reach
// the plugin.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ToolProvider is implemented by plugins that contribute MCP tools.
type ToolProvider interface {
	// Tools lists the plugin's tools; called once at start.
	Tools() []Tool
	// CallTool runs one tool. A domain failure is an *Error.
	CallTool(ctx context.Context, req CallToolRequest, ev Events) (CallToolResponse, error)
}

// CallToolRequest is one call of a plugin's tool.
type CallToolRequest struct {
	// Name is the tool's name as the plugin lists it (without the
	// "<plugin>_" prefix agents see).
	Name string `json:"name"`
	// Arguments is the call's JSON object, already checked against the
	// tool's schema by the host.
	Arguments json.RawMessage `json:"arguments"`
}

// CallToolResponse is the tool's answer.
type CallToolResponse struct {
	// Result is any JSON-marshalable value.
	Result any `json:"result"`
}
