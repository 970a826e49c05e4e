package browser

import (
	"context"
	"net/url"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Navigation targets of mm_navigate.
const (
	ScreenHome         = "home"
	ScreenSettings     = "settings"
	ScreenNotification = "notification"
	ScreenURL          = "url"
)

// NavigateResult is mm_navigate's result.
type NavigateResult struct {
	Navigated  bool   `json:"navigated"`
	CurrentURL string `json:"currentUrl"`
	// ClosedOverlay names the wallet overlay left open over the screen
	// (MetaMask's account menu) that the navigation closed.
	ClosedOverlay string `json:"closedOverlay,omitempty"`
}

// Navigate goes to a wallet screen or a URL and makes that page active:
// home, settings and notification load the extension page in the active
// extension tab (the home tab when the active page is not an extension
// page) and return once its app has rendered (bounded); url loads rawURL
// in the session's URL tab (see openURL). Errors: MM_INVALID_INPUT
// (unknown screen, url missing or not absolute), MM_NAVIGATION_FAILED,
// MM_TARGET_COVERED (a wallet screen loaded but a known modal or popover
// stayed over it for discovery.CoveredFor, after discovery.CloseOverlay
// found no close control or its click did not close it; the page is
// active). A known overlay closed so is named in ClosedOverlay.
func (s *Chrome) Navigate(ctx context.Context, screen, rawURL string) (NavigateResult, error) {
	var target string
	switch screen {
	case ScreenHome:
		target = s.homeURL()
	case ScreenSettings:
		target = s.homeURL() + s.pages.SettingsFragment
	case ScreenNotification:
		target = s.extURL(s.pages.NotificationPage)
	case ScreenURL:
		if err := CheckURL(rawURL); err != nil {
			return NavigateResult{}, err
		}
		return s.openURL(ctx, rawURL, false)
	default:
		return NavigateResult{}, sdk.Errorf(sdk.CodeInvalidInput, "unknown screen %q: use home, settings, notification or url", screen)
	}

	page, err := s.extensionTab(ctx)
	if err != nil {
		return NavigateResult{}, sdk.Errorf(sdk.CodeNavigationFailed, "%w", err)
	}
	if err := s.navigate(ctx, page, target); err != nil {
		return NavigateResult{}, sdk.Errorf(sdk.CodeNavigationFailed, "%w", err)
	}
	// The document is loaded; the wallet's app renders a moment later.
	loaded(ctx, page)
	probe, err := s.waitRendered(ctx, page)
	if err != nil {
		return NavigateResult{}, sdk.Errorf(sdk.CodeNavigationFailed, "the wallet page closed while rendering: %w", err)
	}
	s.activate(ctx, page.TargetID)
	// A known modal or popover left open (MetaMask's account menu) stays
	// over the new screen: it is closed through its close control. One
	// that cannot be closed so answers MM_TARGET_COVERED; the page is
	// active, so the agent can close it. The render wait read the
	// viewport's centre as it ended: when no dialog-like box was there,
	// nothing known covers the screen and it is not read again.
	var closed string
	if !probe.rendered() || probe.Boxed {
		var covered bool
		closed, covered, err = discovery.CloseOverlay(ctx, page)
		if err != nil {
			s.log.Debug("closing the overlay over the screen", "error", err)
		}
		if covered {
			// the screen is checked again only when something was over it
			if err := discovery.ScreenCovered(ctx, page, screen); err != nil {
				return NavigateResult{}, err
			}
		}
	}
	return NavigateResult{Navigated: true, CurrentURL: s.pageURL(ctx, page), ClosedOverlay: closed}, nil
}

// OpenTab loads rawURL in a new tab, which becomes active and the
// session's URL tab (mm_navigate with newTab). Errors as Navigate's.
func (s *Chrome) OpenTab(ctx context.Context, rawURL string) (NavigateResult, error) {
	if err := CheckURL(rawURL); err != nil {
		return NavigateResult{}, err
	}
	return s.openURL(ctx, rawURL, true)
}

// CheckURL answers MM_INVALID_INPUT unless rawURL is absolute (screen url).
func CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if rawURL == "" || err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Scheme != "file") {
		return sdk.Errorf(sdk.CodeInvalidInput, "screen %q needs an absolute url (like http://127.0.0.1:8080), got %q", ScreenURL, rawURL)
	}
	return nil
}

// openURL loads rawURL and makes its tab active. The tab is the session's
// URL tab: the one the last URL navigation used while it is open and not a
// wallet page, else the newest dapp tab the session has that no page
// opened (a dapp's own popups are left alone), else a new tab; newTab
// always opens a new one. A new tab that fails to load is closed; a reused
// one stays, on Chrome's error page.
func (s *Chrome) openURL(ctx context.Context, rawURL string, newTab bool) (NavigateResult, error) {
	var page *rod.Page
	ti, reuse := s.reusableTab()
	var err error
	if reuse && !newTab {
		if page, err = s.attach(ti.ID); err == nil {
			err = s.navigate(ctx, page, rawURL)
		}
		if err == nil {
			s.activate(ctx, ti.ID)
		}
	} else {
		page, err = s.newTab(ctx, rawURL, false)
	}
	if err != nil {
		return NavigateResult{}, sdk.Errorf(sdk.CodeNavigationFailed, "%w", err)
	}
	s.mu.Lock()
	s.urlTab = page.TargetID
	s.mu.Unlock()
	return NavigateResult{Navigated: true, CurrentURL: s.pageURL(ctx, page)}, nil
}

// reusableTab is the tab a URL navigation reuses, if any (see openURL).
func (s *Chrome) reusableTab() (TabInfo, bool) {
	s.mu.Lock()
	id := s.urlTab
	s.mu.Unlock()
	if ti, ok := s.tabs.get(id); ok && ti.Owned && (ti.Role == RoleDapp || ti.Role == RoleOther) {
		return ti, true
	}
	owned := s.tabs.owned()
	for i := len(owned) - 1; i >= 0; i-- {
		if ti := owned[i]; ti.Role == RoleDapp && ti.Opener == "" {
			return ti, true
		}
	}
	return TabInfo{}, false
}

// extensionTab is the tab wallet navigation happens in: the active page
// when it is an extension page, else the home tab, reopened if it was
// closed.
func (s *Chrome) extensionTab(ctx context.Context) (*rod.Page, error) {
	if ti, ok := s.tabs.active(); ok && ti.Role == RoleExtension && ti.Page != nil {
		return ti.Page, nil
	}
	if ti, ok := s.tabs.home(); ok && ti.Page != nil {
		return ti.Page, nil
	}
	return s.newTab(ctx, s.homeURL(), true)
}

// activePage returns the active page, reopening the home page when every
// extension page was closed.
func (s *Chrome) activePage(ctx context.Context) (*rod.Page, error) {
	if ti, ok := s.tabs.active(); ok && ti.Page != nil {
		return ti.Page, nil
	}
	page, err := s.newTab(ctx, s.homeURL(), true)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeNavigationFailed, "reopen the extension home page: %w", err)
	}
	return page, nil
}

// pageURL is the tracked URL of page, falling back to CDP.
func (s *Chrome) pageURL(ctx context.Context, page *rod.Page) string {
	if info, err := page.Context(ctx).Info(); err == nil {
		return info.URL
	}
	if ti, ok := s.tabs.get(page.TargetID); ok {
		return ti.URL
	}
	return ""
}
