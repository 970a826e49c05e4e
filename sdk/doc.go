// Package sdk is everything a team needs to write an mmcp plugin.
//
// A plugin is a separate binary that the mmcp host starts as a subprocess and
// talks to over hashicorp/go-plugin gRPC. Its main is one line:
//
//	func main() { sdk.Main(hello.New()) }
//
// The value passed to Main implements Plugin (Info, Configure, Stop) and any
// of the optional capability interfaces, found by type assertion:
//
//   - ToolProvider: contributes MCP tools, exposed to agents as <plugin>_<tool>.
//     Keep a ToolSet and define each tool once with AddTool (name,
//     description, schema, a handler taking its decoded input): calls are
//     validated and get the schema's defaults the way the host's own tools do.
//   - Builder, Chain, Fixture, ContractSeeder, MockServer: the typed
//     capabilities the host uses to implement mm_build, mm_launch (the
//     mock server is the proxy its Chrome runs through) and the mm_seed_*
//     tools. A plugin that implements one replaces the built-in of that
//     capability.
//   - StateSnapshotter: names the wallet's screens and reads its state for a
//     wallet or version the built-in MetaMask profile does not know
//     (examples/screens-plugin).
//
// Every capability method takes a context and one request struct (plus
// Events when it streams progress) and answers one response struct and an
// error, e.g. SetBalance(ctx, SetBalanceRequest{Address, Wei})
// (SetBalanceResponse, error): a field can be added to either side later
// without changing any plugin's signature. Method names are unique across
// the capabilities, so one type may implement several. Chain is
// ChainLifecycle (StartChain, StopChain, ChainStatus) plus ChainControl
// (Snapshot, Revert, SetBalance, Mine).
//
// Domain failures are returned as *Error values with an MM_* code; they reach
// the agent verbatim in the error envelope. Any other error means the plugin
// itself failed.
//
// Rules of the road, enforced by Main:
//
//   - stdout belongs to go-plugin's handshake: never print to it. Log through
//     the hclog.Logger from Logger (it writes to stderr, and the host forwards
//     it into its own log).
//   - stdin is the null device.
//   - the plugin exits when its parent dies (a watchdog polls the parent pid),
//     so kill child processes in Stop and on exit.
//
// Main also gives every plugin binary standalone modes for debugging:
//
//	mmcp-plugin-x describe              print Describe as JSON
//	mmcp-plugin-x call <tool> '<json>'  run one call in-process, print the result
//	mmcp-plugin-x -debug                serve and print MMCP_REATTACH_PLUGINS=...
//
// In tests, package plugintest serves a plugin in-process and returns a
// client of the same type the host uses (package pluginhost, the host's
// half of the protocol, which a plugin never imports).
package sdk
