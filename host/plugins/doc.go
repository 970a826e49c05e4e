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
package plugins
