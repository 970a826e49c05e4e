// Package contracts is mmcp's built-in ContractSeeding plugin: it deploys
// MetaMask's E2E contracts (hst, nfts, erc1155, piggybank, failing,
// multisig and the ERC-4337 trio entrypoint, simpleAccountFactory,
// verifyingPaymaster) to a local chain with MetaMask's constructor
// arguments and post-deploy steps, plus any Foundry or Hardhat artifact
// found in the configured artifact directories, and keeps a per-session
// registry of what it deployed.
//
// Bytecode comes from npm packages, found in the first of: the nodeModules
// setting, <workspace>/node_modules, $MMCP_NODE_MODULES and
// <dir of the plugin binary>/../.tools/node_modules:
//
//   - @metamask/test-dapp (dist/constants.json) for the first six;
//   - @account-abstraction/contracts (artifacts/*.json) for the ERC-4337
//     contracts. The trio is taken from one installation that has all three
//     artifacts; 0.6.0 and 0.7.0 ship VerifyingPaymaster, 0.8.0 does not.
//
// The deployer is the node's account 0 (eth_sendTransaction), an
// impersonated address (anvil_impersonateAccount) or a private key that is
// funded with anvil_setBalance and signs locally. Receipts are polled every
// few milliseconds, and a block is mined (evm_mine) when a transaction is
// not mined at once, so seeding is fast with and without automine.
//
// Settings (all optional):
//
//	{"nodeModules": "path", "artifactDirs": ["out", "artifacts"]}
package contracts
