// Package browser owns the Chrome side of an mmcp session: it launches (or
// attaches to) Chrome with the wallet extension loaded, keeps one long-lived
// target event loop that tracks every page and its role (extension,
// notification, dapp, other), knows which page is active, and implements the
// page-level tools: navigate, wait for the notification popup, switch and
// close tabs, screenshots, the clipboard, the extension's in-place reload,
// health and console errors.
//
// The wallet's model (its routes, landmarks, state, unlock) is host/wallet,
// which embeds a Chrome; this package knows only the extension's pages
// (Pages).
//
// Page-side JavaScript always runs in an isolated world
// (Page.createIsolatedWorld): real MetaMask test builds scuttle main-world
// globals with LavaMoat, so main-world helpers break there.
//
// Element discovery and interaction (accessibility snapshot, testids, click,
// type) are in host/discovery, which works on Chrome.ActivePage.
package browser
