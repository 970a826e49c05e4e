// Package testwallet embeds the test wallet extension: a small Manifest V3
// wallet in plain JS/HTML/CSS that behaves like a MetaMask test build closely
// enough for mmcp's demo and end-to-end tests. It reads the fixture from
// http://localhost:12345/state.json at start, keeps MetaMask's routes and
// test ids (unlock, onboarding, home, settings, notification popups),
// decrypts browser-passworder vaults with WebCrypto, injects window.ethereum
// into web pages (announced over EIP-6963) and scuttles a few globals on its
// own pages the way LavaMoat does in real test builds.
//
// It reproduces what a real MetaMask 11.16.7 test build does to a driver:
// its service worker is scuttled too (`chrome.runtime.reload()` evaluated in
// it through DevTools throws "chrome" of globalThis is inaccessible under
// scuttling mode, and settings shows the background's build, so a reload
// that restarts only the pages shows); the transaction Confirm / Reject and
// personal_sign Sign / Reject buttons close the popup inside the mouse
// release (the release is never acknowledged); the connect popup closes a
// moment after its Confirm; the account menu (account-menu-icon) is an
// .mm-modal on the document body that stays open over any screen a hash
// route shows, closed by its button[aria-label="Close"]; onboarding and
// settings buttons change the hash route of the same tab.
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
