package browser

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// Profile is everything the session knows about one wallet's UI: its pages,
// how a route maps to a screen name, the landmark testids used when the
// route says nothing, how to unlock, and where the account, network and
// balance are shown. MetaMask's profile is MetaMask(); the session uses no
// wallet-specific string outside a Profile.
type Profile struct {
	// Name identifies the profile in logs.
	Name string

	// HomePage, NotificationPage are the extension pages (relative to
	// chrome-extension://<id>/). SettingsFragment is appended to the home
	// page URL for the settings screen.
	HomePage, NotificationPage, SettingsFragment string

	// NotificationMarkers: an extension page whose URL contains one of
	// these is a notification (popup) page.
	NotificationMarkers []string

	// Routes map the home page's hash route to a screen, first match wins.
	Routes []Route

	// HomeLandmark is the testid that proves the wallet is unlocked and on
	// its main screen (route "/" or empty).
	HomeLandmark string

	// Landmarks are tried in order when the route is empty or unknown.
	Landmarks []Landmark

	// UnlockPassword and UnlockSubmit are the unlock screen's testids.
	UnlockPassword, UnlockSubmit string

	// AccountSelector/AccountAttr locate the selected account address;
	// NetworkSelector's text is the network name and its ChainIDAttr the
	// chain id (hex or decimal); BalanceSelector's text is the balance.
	AccountSelector, AccountAttr string
	NetworkSelector, ChainIDAttr string
	BalanceSelector              string
}

// Route maps a hash route to a screen name. Prefix matches the route itself
// or anything below it ("/settings" matches "/settings/advanced").
type Route struct {
	Prefix string
	Screen string
}

// Landmark maps a testid that is present on a screen to its name.
type Landmark struct {
	TestID string
	Screen string
}

// MetaMask returns the profile of the MetaMask extension (test builds).
func MetaMask() *Profile {
	return &Profile{
		Name:                "metamask",
		HomePage:            "home.html",
		NotificationPage:    "notification.html",
		SettingsFragment:    "#settings",
		NotificationMarkers: []string{"notification.html"},
		Routes: []Route{
			{"/unlock", "unlock"},
			{"/onboarding/welcome", "onboarding-welcome"},
			{"/onboarding/import-with-recovery-phrase", "onboarding-import"},
			{"/onboarding/create-password", "onboarding-password"},
			{"/onboarding/review-recovery-phrase", "onboarding-srp"},
			{"/onboarding/confirm-recovery-phrase", "onboarding-srp"},
			{"/onboarding/completion", "onboarding-complete"},
			{"/onboarding/metametrics", "onboarding-metametrics"},
			{"/settings", "settings"},
		},
		HomeLandmark: "account-menu-icon",
		Landmarks: []Landmark{
			{"unlock-password", "unlock"},
			{"onboarding-create-wallet", "onboarding-welcome"},
			{"onboarding-import-wallet", "onboarding-welcome"},
			{"import-srp__srp-word-0", "onboarding-import"},
			{"create-password-new", "onboarding-password"},
			{"onboarding-complete-done", "onboarding-complete"},
			{"metametrics-i-agree", "onboarding-metametrics"},
			{"account-menu-icon", "home"},
		},
		UnlockPassword:  "unlock-password",
		UnlockSubmit:    "unlock-submit",
		AccountSelector: `[data-testid="account-menu-icon"]`,
		AccountAttr:     "data-address",
		NetworkSelector: `[data-testid="network-display"]`,
		ChainIDAttr:     "data-chain-id",
		BalanceSelector: `[data-testid="eth-overview__primary-currency"]`,
	}
}

// landmarkIDs is every testid whose presence the state script reports.
func (p *Profile) landmarkIDs() []string {
	ids := []string{p.HomeLandmark}
	for _, l := range p.Landmarks {
		if !slices.Contains(ids, l.TestID) {
			ids = append(ids, l.TestID)
		}
	}
	return ids
}

// isNotification reports whether an extension page URL is a notification.
func (p *Profile) isNotification(url string) bool {
	for _, m := range p.NotificationMarkers {
		if strings.Contains(url, m) {
			return true
		}
	}
	return false
}

// route extracts the normalized hash route of a URL: "home.html#/unlock"
// and "home.html#unlock?x=1" both give "/unlock"; no hash gives "".
func route(url string) string {
	i := strings.IndexByte(url, '#')
	if i < 0 {
		return ""
	}
	r := url[i+1:]
	if j := strings.IndexAny(r, "?"); j >= 0 {
		r = r[:j]
	}
	if r == "" {
		return ""
	}
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// Screen names the screen of an extension page from its URL and the set of
// landmark testids present on it. The result is always one of
// observation.Screens.
func (p *Profile) Screen(url string, present map[string]bool) string {
	r := route(url)
	if r != "" && r != "/" {
		for _, rt := range p.Routes {
			if r == rt.Prefix || strings.HasPrefix(r, strings.TrimSuffix(rt.Prefix, "/")+"/") {
				return knownScreen(rt.Screen)
			}
		}
	}
	homeRoute := r == "" || r == "/"
	for _, l := range p.Landmarks {
		// On an unknown route (a send or confirm screen) the header still
		// shows the home landmark: that is not the home screen.
		if !homeRoute && l.TestID == p.HomeLandmark {
			continue
		}
		if present[l.TestID] {
			return knownScreen(l.Screen)
		}
	}
	return "unknown"
}

func knownScreen(s string) string {
	if slices.Contains(observation.Screens, s) {
		return s
	}
	return "unknown"
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
