// Command mmcp-plugin-screens is a complete StateSnapshot plugin: it
// replaces mmcp's built-in MetaMask screen detection and state reading, the
// way a team teaches mmcp its own wallet, fork or newer MetaMask. This one
// reports the screens in a team's own vocabulary ("login", "dashboard",
// "preferences", "approval", "other") and reads the wallet's state from the
// app state MetaMask test builds expose (window.stateHooks).
//
//	go build -o <workspace>/.mmcp/plugins/mmcp-plugin-screens ./examples/screens-plugin
//	mmcp --trust-workspace-plugins plugins   # (or pin its sha256 in .mmcp/config.json)
//	# screens ... capabilities: stateSnapshot
package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

type screens struct{}

// A wrong method signature fails the build instead of dropping the capability.
var _ sdk.StateSnapshotter = screens{}

func (screens) Info() sdk.Info                              { return sdk.Info{Name: "screens", Version: "1.0.0"} }
func (screens) Configure(context.Context, sdk.Config) error { return nil }
func (screens) Stop(context.Context) error                  { return nil }

// appScript runs in the wallet page's main world on every state read. It
// must be quick and touch no global but window (LavaMoat scuttles the
// others in test builds); the host passes its JSON value on as AppState.
const appScript = `(async () => {
  const h = window.stateHooks;
  if (!h || !h.getCleanAppState) return null;
  const m = (await h.getCleanAppState()).metamask;
  const ia = m.internalAccounts || {};
  const acct = (ia.accounts || {})[ia.selectedAccount];
  return { unlocked: m.isUnlocked === true, address: acct ? acct.address : null,
    chainId: m.providerConfig ? m.providerConfig.chainId : null };
})()`

// Probe says what the host reads from each wallet page: a few elements by
// CSS selector (presence and text) and the app-state script.
func (screens) Probe(context.Context, sdk.ProbeRequest) (sdk.ProbeResponse, error) {
	return sdk.ProbeResponse{Probe: sdk.StateProbe{
		Elements: map[string]string{
			"password": `[data-testid="unlock-password"]`,
			"account":  `[data-testid="account-menu-icon"]`,
			"network":  `[data-testid="network-display"]`,
		},
		Script: appScript,
	}}, nil
}

// DetectScreen names the screen from the page's hash route and elements.
func (screens) DetectScreen(_ context.Context, req sdk.DetectScreenRequest) (sdk.DetectScreenResponse, error) {
	return sdk.DetectScreenResponse{Screen: screenOf(req.Page)}, nil
}

func screenOf(page sdk.PageSnapshot) string {
	route := ""
	if i := strings.IndexByte(page.URL, '#'); i >= 0 {
		route = strings.TrimPrefix(page.URL[i+1:], "/")
	}
	switch {
	case page.Elements["password"].Present:
		return "login"
	case page.Role == "notification":
		return "approval"
	case strings.HasPrefix(route, "settings"):
		return "preferences"
	case route == "" && page.Elements["account"].Present:
		return "dashboard"
	}
	return "other"
}

// State reads the lock state, account and chain from the app state, and
// the network name from the page.
func (screens) State(_ context.Context, req sdk.StateRequest) (sdk.StateResponse, error) {
	return sdk.StateResponse{Status: statusOf(req.Page)}, nil
}

func statusOf(page sdk.PageSnapshot) sdk.WalletStatus {
	var ws sdk.WalletStatus
	if n := page.Elements["network"]; n.Present && n.Text != "" {
		ws.NetworkName = &n.Text
	}
	var app struct {
		Unlocked bool    `json:"unlocked"`
		Address  *string `json:"address"`
		ChainID  *string `json:"chainId"`
	}
	if len(page.AppState) == 0 || json.Unmarshal(page.AppState, &app) != nil {
		return ws // the wallet's UI has not started yet
	}
	ws.IsUnlocked, ws.AccountAddress = &app.Unlocked, app.Address
	if app.ChainID != nil {
		if id, err := strconv.ParseInt(strings.TrimPrefix(*app.ChainID, "0x"), 16, 64); err == nil {
			ws.ChainID = &id
		}
	}
	return ws
}

func main() { sdk.Main(screens{}) }
