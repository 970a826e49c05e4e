// Package testwallet embeds the test wallet extension: a small Manifest V3
// wallet in plain JS/HTML/CSS that behaves like a MetaMask test build closely
// enough for mmcp's demo and end-to-end tests. It reads the fixture from
// http://localhost:12345/state.json at start, keeps MetaMask's routes and
// test ids (unlock, onboarding, home, settings, notification popups),
// decrypts browser-passworder vaults with WebCrypto, injects window.ethereum
// into web pages and scuttles a few globals on its own pages the way LavaMoat
// does in real test builds.
//
// Use FS to read the files or WriteTo to unpack them for Chrome's
// --load-extension flag.
package testwallet
