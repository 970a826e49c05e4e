package sdk

import (
	"context"
	"encoding/json"
)

// StateSnapshotter is the StateSnapshot capability (the wallet's state and
// its current screen). It teaches mmcp another wallet, or another version
// of MetaMask: it names the wallet's screens and reads its state from what
// the host read off a wallet page. Probe says what the host reads; the host
// calls DetectScreen and State on every state read (mm_get_state, every
// step record), so both must be quick and must not block. mmcp's built-in
// MetaMask profile is the default; a plugin declaring this capability
// replaces it.
type StateSnapshotter interface {
	// Probe says what the host reads from each wallet page. It is asked
	// once per session.
	Probe(ctx context.Context, req ProbeRequest) (ProbeResponse, error)
	// DetectScreen names the page's screen ("home", "unlock", ... or any
	// name of the wallet's own); "unknown" when it cannot tell.
	DetectScreen(ctx context.Context, req DetectScreenRequest) (DetectScreenResponse, error)
	// State reads the wallet's state from the page. Fields it cannot read
	// stay nil.
	State(ctx context.Context, req StateRequest) (StateResponse, error)
}

// ProbeRequest asks what to read from each wallet page.
type ProbeRequest struct{}

// ProbeResponse says what to read from each wallet page.
type ProbeResponse struct {
	Probe StateProbe `json:"probe"`
}

// DetectScreenRequest is the page to name.
type DetectScreenRequest struct {
	Page PageSnapshot `json:"page"`
}

// DetectScreenResponse names the page's screen.
type DetectScreenResponse struct {
	Screen string `json:"screen"`
}

// StateRequest is the page to read the wallet's state from.
type StateRequest struct {
	Page PageSnapshot `json:"page"`
	SnapshotOptions
}

// StateResponse is the wallet's state.
type StateResponse struct {
	Status WalletStatus `json:"status"`
}

// StateProbe is what the host reads from every wallet page for a
// StateSnapshotter.
type StateProbe struct {
	// Elements maps a name to a CSS selector; PageSnapshot.Elements reports
	// under that name whether it matches and the first match's text.
	Elements map[string]string `json:"elements,omitempty"`
	// Script is a JavaScript expression the host evaluates in the page's
	// main world (the wallet's own JavaScript context); it may return a
	// promise. Its JSON value is PageSnapshot.AppState (null when it throws
	// or takes longer than a second). MetaMask's test builds answer
	// window.stateHooks.getCleanAppState() there.
	Script string `json:"script,omitempty"`
}

// PageSnapshot is what the host read from one wallet page.
type PageSnapshot struct {
	// URL is the page's URL (chrome-extension://<id>/home.html#/route).
	URL string `json:"url"`
	// Role is "extension" (the wallet's own tab) or "notification" (its
	// popup).
	Role string `json:"role"`
	// Elements holds every StateProbe element by name.
	Elements map[string]ElementProbe `json:"elements"`
	// AppState is the value of StateProbe.Script, or null.
	AppState json.RawMessage `json:"appState,omitempty"`
}

// ElementProbe is one StateProbe element on a page.
type ElementProbe struct {
	// Present is true when the selector matches.
	Present bool `json:"present"`
	// Text is the first match's visible text, trimmed, at most 200
	// characters.
	Text string `json:"text,omitempty"`
}

// SnapshotOptions say which wallet State reads.
type SnapshotOptions struct {
	// ExtensionID is the wallet extension's id.
	ExtensionID string `json:"extensionId"`
	// ChainID is the chain id the caller expects, 0 when it has none (the
	// host passes none: the wallet's own chain id is what State reads).
	ChainID int64 `json:"chainId,omitempty"`
}

// WalletStatus is the wallet's state as a StateSnapshotter reads it (the
// wallet fields of mm_get_state's answer). Nil fields are unknown.
type WalletStatus struct {
	IsUnlocked     *bool   `json:"isUnlocked,omitempty"`
	AccountAddress *string `json:"accountAddress,omitempty"`
	NetworkName    *string `json:"networkName,omitempty"`
	ChainID        *int64  `json:"chainId,omitempty"`
	Balance        *string `json:"balance,omitempty"`
	// ErrorMessage is the wallet's error text when the page shows its
	// error screen.
	ErrorMessage *string `json:"errorMessage,omitempty"`
}
