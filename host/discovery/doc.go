// Package discovery finds and drives elements of a page for the agent: the
// trimmed accessibility snapshot with deterministic refs, the visible
// data-testid inventory, the cheap full observation taken after every action,
// and click / type / wait on a target given as exactly one of an a11y ref, a
// testid or a CSS selector (the interaction tools' target).
//
// All page-side JavaScript runs in an isolated world (Page.createIsolatedWorld)
// because MetaMask's LavaMoat scuttling makes main-world globals such as
// HTMLInputElement throw. Refs resolve to exactly the element they were taken
// from (a backend DOM node id, or an element kept in the isolated world), never
// by re-querying role and name.
package discovery
