package browser

import "strings"

// Pages are what the Chrome driver knows of the wallet extension's UI: the
// pages it opens and how it tells the notification popup from them. The
// wallet's model (host/wallet's Profile) provides them.
type Pages struct {
	// HomePage, NotificationPage are the extension pages (relative to
	// chrome-extension://<id>/). SettingsFragment is appended to the home
	// page URL for the settings screen.
	HomePage, NotificationPage, SettingsFragment string

	// NotificationMarkers: an extension page whose URL contains one of
	// these is a notification (popup) page.
	NotificationMarkers []string

	// PopupSize is the window size the wallet opens its notification
	// popup at. Headless Chrome opens every window at the browser's
	// window size whatever the wallet asks: the session sizes the popup's
	// window to PopupSize when it finds the popup (see fitPopup).
	PopupSize Viewport
}

// isNotification reports whether an extension page URL is a notification.
func (p Pages) isNotification(url string) bool {
	for _, m := range p.NotificationMarkers {
		if strings.Contains(url, m) {
			return true
		}
	}
	return false
}

// HashRoute extracts the normalized hash route of a URL: "home.html#/unlock"
// and "home.html#unlock?x=1" both give "/unlock"; no hash gives "".
func HashRoute(url string) string {
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
