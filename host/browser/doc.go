// Package browser owns the Chrome side of an mmcp session: it launches (or
// attaches to) Chrome with the wallet extension loaded, keeps one long-lived
// target event loop that tracks every page and its role (extension,
// notification, dapp, other), knows which page is active, and implements the
// page-level tools: state, navigate, wait for the notification popup, switch
// and close tabs, screenshots and the clipboard.
//
// Everything wallet-specific (routes, landmark testids, where the account and
// network are shown) lives in one Profile; MetaMask is the default.
//
// Page-side JavaScript always runs in an isolated world
// (Page.createIsolatedWorld): real MetaMask test builds scuttle main-world
// globals with LavaMoat, so main-world helpers break there.
//
// Element discovery and interaction (accessibility snapshot, testids, click,
// type) are in host/discovery, which works on Session.ActivePage.
package browser
