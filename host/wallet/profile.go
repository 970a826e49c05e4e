package wallet

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mmcp-dev/mmcp/host/browser"
)

// Profile is everything the session knows about one wallet's UI: its pages,
// how a route maps to a screen name, the landmarks used when the route says
// nothing, how to unlock, and where its state is read. MetaMask's profile
// is MetaMask(); the session uses no wallet-specific string outside a
// Profile. A Profile is also the built-in sdk.StateSnapshotter (see
// screens.go and walletstate.go), which a StateSnapshot plugin replaces.
type Profile struct {
	// Name identifies the profile in logs.
	Name string

	// Pages are the extension's pages, as the Chrome driver opens them.
	browser.Pages

	// Routes map the page's hash route to a screen, first match wins.
	Routes []Route

	// Approvals name the screen that shows a pending approval, by the
	// approval's type in the wallet's app state: a popup that has not
	// routed yet, or a generic confirmation route, shows its approval.
	Approvals map[string]string

	// HomeLandmark is the testid that proves the wallet is unlocked and on
	// its main screen (route "/" or empty).
	HomeLandmark string

	// Landmarks are tried in order when the route is empty or unknown.
	Landmarks []Landmark

	// UnlockedScreens are screens only an unlocked wallet shows; they
	// decide the lock state when the app state cannot be read.
	UnlockedScreens []string

	// UnlockPassword and UnlockSubmit are the unlock screen's testids.
	UnlockPassword, UnlockSubmit string
	// UnlockError is a CSS selector of the unlock screen's message that
	// refuses a password ("" for none): Unlock reports a refused password
	// as soon as it shows, not at the wait's bound.
	UnlockError string

	// AppStateScript reads the wallet's app state in the page's main world
	// (see walletstate.go).
	AppStateScript string

	// The DOM fallback when the app state cannot be read: CSS selectors of
	// the network name, the balance, a full account address, the error
	// page and the error page's message.
	NetworkSelector, BalanceSelector, AccountSelector string
	ErrorSelector, ErrorMessageSelector               string
}

// Route maps a hash route to a screen name. Prefix matches the route itself
// or anything below it ("/settings" matches "/settings/advanced"); a
// non-empty Contains must also occur in the route. With FromApproval the
// screen is the one of the approval the route names (its last segment, or
// the first pending one), and Screen only when that is unknown.
type Route struct {
	Prefix       string
	Screen       string
	Contains     string
	FromApproval bool
}

// Landmark maps an element that is present on a screen to its name.
type Landmark struct {
	TestID string
	Screen string
	// Selector, when set, is used instead of TestID.
	Selector string
}

// selector is the landmark's CSS selector.
func (l Landmark) selector() string {
	if l.Selector != "" {
		return l.Selector
	}
	return testIDSelector(l.TestID)
}

// key is the landmark's name among the probed elements.
func (l Landmark) key() string {
	if l.Selector != "" {
		return l.Selector
	}
	return l.TestID
}

func testIDSelector(id string) string { return `[data-testid="` + id + `"]` }

// MetaMask returns the profile of the MetaMask extension (test builds),
// from the routes of ui/helpers/constants/routes and the testids of
// MetaMask's UI and test/e2e.
func MetaMask() *Profile {
	return &Profile{
		Name: "metamask",
		Pages: browser.Pages{
			HomePage:         "home.html",
			NotificationPage: "notification.html",
			// MetaMask's NOTIFICATION_WIDTH and NOTIFICATION_HEIGHT
			// (app/scripts/lib/notification-manager).
			PopupSize:           browser.Viewport{Width: 360, Height: 620},
			SettingsFragment:    "#settings",
			NotificationMarkers: []string{"notification.html"},
		},
		Routes: []Route{
			{Prefix: "/unlock", Screen: "unlock"},
			{Prefix: "/onboarding/unlock", Screen: "unlock"},
			{Prefix: "/onboarding/welcome", Screen: "onboarding-welcome"},
			{Prefix: "/onboarding/import-with-recovery-phrase", Screen: "onboarding-import"},
			{Prefix: "/onboarding/create-password", Screen: "onboarding-password"},
			{Prefix: "/onboarding/reveal-recovery-phrase", Screen: "onboarding-srp"},
			{Prefix: "/onboarding/review-recovery-phrase", Screen: "onboarding-srp"},
			{Prefix: "/onboarding/confirm-recovery-phrase", Screen: "onboarding-srp"},
			{Prefix: "/onboarding/completion", Screen: "onboarding-complete"},
			{Prefix: "/onboarding/metametrics", Screen: "onboarding-metametrics"},
			{Prefix: "/onboarding/help-us-improve", Screen: "onboarding-metametrics"},
			{Prefix: "/onboarding/pin-extension", Screen: "onboarding-pin-extension"},
			{Prefix: "/onboarding/privacy-settings", Screen: "onboarding-privacy"},
			{Prefix: "/settings", Screen: "settings"},
			{Prefix: "/connect", Screen: "connect"},
			{Prefix: "/confirm-transaction", Contains: "/signature-request", Screen: "confirm-signature"},
			{Prefix: "/confirm-transaction", Screen: "confirm-transaction"},
			{Prefix: "/confirmation", Screen: "confirmation", FromApproval: true},
			{Prefix: "/send", Screen: "send"},
			{Prefix: "/swaps", Screen: "swap"},
			{Prefix: "/cross-chain", Screen: "bridge"},
		},
		Approvals: map[string]string{
			"wallet_requestPermissions":  "connect",
			"transaction":                "confirm-transaction",
			"personal_sign":              "confirm-signature",
			"eth_sign":                   "confirm-signature",
			"eth_signTypedData":          "confirm-signature",
			"wallet_addEthereumChain":    "add-network",
			"wallet_switchEthereumChain": "switch-network",
		},
		HomeLandmark: "account-menu-icon",
		Landmarks: []Landmark{
			{Selector: ".error-page", Screen: "error"},
			{TestID: "unlock-password", Screen: "unlock"},
			{TestID: "onboarding-metametrics", Screen: "onboarding-metametrics"},
			{TestID: "metametrics-i-agree", Screen: "onboarding-metametrics"},
			{TestID: "metametrics-no-thanks", Screen: "onboarding-metametrics"},
			{TestID: "pin-extension-next", Screen: "onboarding-pin-extension"},
			{TestID: "pin-extension-done", Screen: "onboarding-pin-extension"},
			{TestID: "onboarding-complete-done", Screen: "onboarding-complete"},
			{TestID: "onboarding-create-wallet", Screen: "onboarding-welcome"},
			{TestID: "onboarding-import-wallet", Screen: "onboarding-welcome"},
			{TestID: "import-srp__srp-word-0", Screen: "onboarding-import"},
			{TestID: "create-password-new", Screen: "onboarding-password"},
			{TestID: "account-menu-icon", Screen: "home"},
		},
		UnlockedScreens: []string{
			"home", "settings", "send", "swap", "bridge", "connect", "confirm-transaction",
			"confirm-signature", "confirmation", "add-network", "switch-network",
		},
		UnlockPassword:       "unlock-password",
		UnlockSubmit:         "unlock-submit",
		UnlockError:          `[data-testid="unlock-error"], .unlock-page form [role="alert"]`,
		AppStateScript:       metaMaskAppState,
		NetworkSelector:      `[data-testid="network-display"]`,
		BalanceSelector:      `[data-testid="eth-overview__primary-currency"]`,
		AccountSelector:      `[data-testid="address-copy-button-text"]`,
		ErrorSelector:        ".error-page",
		ErrorMessageSelector: `[data-testid="error-page-error-message"], .error-page__details li p`,
	}
}

// matches reports whether route r is rt's prefix or below it.
func (rt Route) matches(r string) bool {
	if r != rt.Prefix && !strings.HasPrefix(r, strings.TrimSuffix(rt.Prefix, "/")+"/") {
		return false
	}
	return rt.Contains == "" || strings.Contains(r, rt.Contains)
}

func (p *Profile) unlockedScreen(screen string) bool {
	return slices.Contains(p.UnlockedScreens, screen)
}

// parseChainID reads "0x539" or "1337".
func parseChainID(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		v, err := strconv.ParseInt(s[2:], 16, 64)
		return v, err == nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
