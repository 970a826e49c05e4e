// Package plugins discovers, starts, watches and stops the host's plugins.
//
// Discovery order (first match per name wins; shadowed ones are logged):
//
//  1. MMCP_REATTACH_PLUGINS: plugins already running (under a debugger);
//     attached to and never killed.
//  2. Plugins named in the config file, optionally pinned by sha256.
//  3. The MMCP_PLUGIN_PATH (--plugin-path) directories.
//  4. <workspace>/.mmcp/plugins/, then the user config dir's mmcp/plugins/.
//  5. The directory of the host executable (where the built-ins ship).
//
// Never the current directory: MCP clients start servers in their own
// working directory. A plugin binary is named mmcp-plugin-<name>.
//
// Sessions: Manager.Slot(n) is the plugins as wallet session slot n sees
// them. A plugin declaring a per-session capability (chain, contract
// seeding, mock server) runs one process per slot, started on the slot's
// first call; the others are slot 0's, shared (see Slot).
package plugins
