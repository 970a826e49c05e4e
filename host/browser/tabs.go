package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// SwitchResult is mm_switch_to_tab's result.
type SwitchResult struct {
	Switched  bool            `json:"switched"`
	ActiveTab observation.Tab `json:"activeTab"`
}

// CloseResult is mm_close_tab's result.
type CloseResult struct {
	Closed    bool   `json:"closed"`
	ClosedURL string `json:"closedUrl"`
}

var roles = []string{RoleExtension, RoleNotification, RoleDapp, RoleOther}

// CheckTabSelector answers MM_INVALID_INPUT unless a known role or a url
// prefix names a tab.
func CheckTabSelector(role, urlPrefix string) error {
	if role == "" && urlPrefix == "" {
		return sdk.Errorf(sdk.CodeInvalidInput, "give a tab role (extension, notification, dapp, other) or a url prefix")
	}
	if role != "" {
		for _, r := range roles {
			if r == role {
				return nil
			}
		}
		return sdk.Errorf(sdk.CodeInvalidInput, "unknown tab role %q: use extension, notification, dapp or other", role)
	}
	return nil
}

func (s *Chrome) tabNotFound(role, urlPrefix string) error {
	return sdk.Errorf(sdk.CodeTabNotFound, "no open tab matches role %q url %q", role, urlPrefix).
		WithDetails(map[string]any{"tracked": s.Tabs().Tracked})
}

// SwitchTab makes the tab matching role and/or URL prefix the active page
// and brings it to the front. The home tab wins when it matches, else the
// newest match. A wallet page (extension or notification) is returned once
// its app has rendered (bounded). Errors: MM_INVALID_INPUT, MM_TAB_NOT_FOUND.
func (s *Chrome) SwitchTab(ctx context.Context, role, urlPrefix string) (SwitchResult, error) {
	if err := CheckTabSelector(role, urlPrefix); err != nil {
		return SwitchResult{}, err
	}
	matches := s.tabs.find(role, urlPrefix)
	if len(matches) == 0 {
		return SwitchResult{}, s.tabNotFound(role, urlPrefix)
	}
	pick := matches[len(matches)-1]
	for _, m := range matches {
		if m.Home {
			pick = m
		}
	}
	page, err := s.attach(pick.ID)
	if err != nil {
		return SwitchResult{}, sdk.Errorf(sdk.CodeTabNotFound, "tab %s: %w", pick.URL, err)
	}
	if WalletRole(pick.Role) {
		// A wallet page may still be rendering (a popup just opened).
		if _, err := s.waitRendered(ctx, page); err != nil {
			return SwitchResult{}, sdk.Errorf(sdk.CodeTabNotFound, "tab %s closed while rendering: %w", pick.URL, err)
		}
	}
	s.activate(ctx, page.TargetID)
	return SwitchResult{Switched: true, ActiveTab: observation.Tab{Role: pick.Role, URL: pick.URL}}, nil
}

// CloseTab closes the newest tab matching role and/or URL prefix and waits
// until it is gone; when it was active, the home page becomes active. The
// extension home page is never closed. Errors: MM_INVALID_INPUT (no
// selector, or only the home page matches), MM_TAB_NOT_FOUND.
func (s *Chrome) CloseTab(ctx context.Context, role, urlPrefix string) (CloseResult, error) {
	if err := CheckTabSelector(role, urlPrefix); err != nil {
		return CloseResult{}, err
	}
	matches := s.tabs.find(role, urlPrefix)
	var pick *TabInfo
	for i := range matches {
		if !matches[i].Home {
			pick = &matches[i]
		}
	}
	if pick == nil {
		if len(matches) > 0 {
			return CloseResult{}, sdk.Errorf(sdk.CodeInvalidInput, "the extension home page cannot be closed")
		}
		return CloseResult{}, s.tabNotFound(role, urlPrefix)
	}
	if err := s.closeTarget(ctx, pick.ID); err != nil {
		return CloseResult{}, sdk.Errorf(sdk.CodeTabNotFound, "close tab %s: %w", pick.URL, err)
	}
	return CloseResult{Closed: true, ClosedURL: pick.URL}, nil
}

// closeTarget closes a page target and waits (briefly) until the event
// loop has seen it go, so Tabs and the active page are up to date.
func (s *Chrome) closeTarget(ctx context.Context, id proto.TargetTargetID) error {
	if _, err := (proto.TargetCloseTarget{TargetID: id}).Call(s.browser.Context(ctx)); err != nil {
		return err
	}
	timeout := time.After(2 * time.Second)
	for {
		changed := s.tabs.wait()
		if _, ok := s.tabs.get(id); !ok {
			return nil
		}
		select {
		case <-changed:
		case <-timeout:
			s.log.Debug("tab close not confirmed", "target", id)
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// forgetTarget drops per-page caches of a closed target.
func (s *Chrome) forgetTarget(id proto.TargetTargetID, page *rod.Page) {
	if page != nil {
		discovery.ForgetPage(page)
	}
	s.mu.Lock()
	delete(s.focusSet, id)
	s.mu.Unlock()
}

// makeRoom closes the session's oldest tabs until one more fits under
// Options.MaxTabs: non-extension tabs (dapps and others) first, then
// extension pages; never the home page, a notification popup, or a tab of
// an attached Chrome that was there before the session.
func (s *Chrome) makeRoom(ctx context.Context) {
	owned := s.tabs.owned()
	excess := len(owned) + 1 - s.opts.MaxTabs
	if excess <= 0 {
		return
	}
	var victims []TabInfo
	for _, closable := range []func(TabInfo) bool{
		func(ti TabInfo) bool { return ti.Role == RoleDapp || ti.Role == RoleOther },
		func(ti TabInfo) bool { return ti.Role == RoleExtension && !ti.Home },
	} {
		for _, ti := range owned {
			if len(victims) < excess && closable(ti) {
				victims = append(victims, ti)
			}
		}
	}
	for _, v := range victims {
		s.log.Debug("closing the session's oldest tab", "url", v.URL, "maxTabs", s.opts.MaxTabs)
		if err := s.closeTarget(ctx, v.ID); err != nil {
			s.log.Warn("could not close a tab over the limit", "url", v.URL, "error", err)
		}
	}
}

// closeOwned closes the tabs the session opened in an attached Chrome,
// which outlives the session (a launched Chrome is killed as a whole).
func (s *Chrome) closeOwned(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, ti := range s.tabs.owned() {
		if _, err := (proto.TargetCloseTarget{TargetID: ti.ID}).Call(s.browser.Context(cctx)); err != nil {
			s.log.Debug("close the session's tab", "url", ti.URL, "error", err)
		}
	}
}
