// Package testwallet embeds the test wallet extension: a small Manifest V3
// wallet in plain JS/HTML/CSS that behaves like a MetaMask test build closely
// enough for mmcp's demo and end-to-end tests. It reads the fixture from
// http://localhost:12345/state.json at start, keeps MetaMask's routes and
// test ids (unlock, onboarding, home, settings, notification popups),
// decrypts browser-passworder vaults with WebCrypto, injects window.ethereum
// into web pages (announced over EIP-6963) and scuttles a few globals on its
// own pages the way LavaMoat does in real test builds.
//
// Dapp requests that need approval (connect, eth_sendTransaction,
// personal_sign, eth_signTypedData_v4, wallet_addEthereumChain,
// wallet_switchEthereumChain) are shown in one notification popup with
// MetaMask's routes and testids; the node's unlocked account signs and sends,
// so signatures verify; a rejection answers 4001. Switching networks emits
// chainChanged.
//
// Use FS to read the files or WriteTo to unpack them for Chrome's
// --load-extension flag.
package testwallet
