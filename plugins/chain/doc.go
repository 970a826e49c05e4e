// Package chain is mmcp's built-in Chain plugin: it runs a local Anvil node
// the way MetaMask's end-to-end tests do (chain id 1337, the E2E mnemonic,
// 25 ETH per account, Prague) or attaches to a node that already runs.
//
// Anvil is a child process in its own process group; its output goes to the
// plugin's hclog logger with private keys and the mnemonic redacted, and the
// whole group is killed on Stop and when the plugin process dies (Pdeathsig
// on Linux).
//
// The default block time is 0, which leaves Anvil in automine mode: every
// transaction is mined at once, so seeding contracts takes milliseconds.
// MetaMask's own runner uses --block-time 2; set "blockTime": 2 to get it.
//
// Settings (the plugin's section of the mmcp config, all optional):
//
//	{"anvilPath": "...", "port": 8545, "chainId": 1337, "mnemonic": "...",
//	 "balance": 25, "hardfork": "prague", "blockTime": 0, "rpcUrl": "",
//	 "freePort": false}
//
// The fields of sdk.ChainOptions given to StartChain override the settings.
package chain
