package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultNotificationTimeout is mm_wait_for_notification's default.
const DefaultNotificationTimeout = 15 * time.Second

// PopupCloseWait bounds how long a click in the notification popup waits
// for the wallet to close the popup: MetaMask closes it from its background
// once the approval is settled, more than 500 ms after the click.
const PopupCloseWait = 3 * time.Second

// NotificationResult is mm_wait_for_notification's result.
type NotificationResult struct {
	Found   bool   `json:"found"`
	PageURL string `json:"pageUrl"`
}

// WaitForNotification waits, bounded by ctx and timeout (0 means
// DefaultNotificationTimeout), for the wallet's notification page (the
// newest one when several are open, including one already open), waits for
// it to load and its app to render (bounded by renderWait), and makes it
// the active page. A popup that opens as about:blank and navigates later is
// seen when it navigates. Errors: MM_NOTIFICATION_TIMEOUT (its message says
// what the console showed meanwhile, such as Chrome refusing the popup's
// window bounds in the wallet's service worker), MM_CANCELLED.
func (s *Chrome) WaitForNotification(ctx context.Context, timeout time.Duration) (NotificationResult, error) {
	if timeout <= 0 {
		timeout = DefaultNotificationTimeout
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var seen *notificationSeen // the last notification page that did not render
	for {
		changed := s.tabs.wait()
		if found := s.tabs.find(RoleNotification, ""); len(found) > 0 {
			ti := found[len(found)-1]
			page, err := s.attach(ti.ID)
			resized := false
			if err == nil {
				resized = s.fitPopup(wctx, ti.ID)
				err = s.waitLoaded(wctx, page, false, func(href string) bool {
					return strings.HasPrefix(href, "chrome-extension://"+s.extID+"/")
				})
			}
			if err == nil {
				_, err = s.waitRendered(wctx, page)
			}
			if err == nil && resized {
				s.waitPopupWidth(wctx, page)
			}
			if err == nil {
				s.activate(ctx, ti.ID)
				return NotificationResult{Found: true, PageURL: s.pageURL(ctx, page)}, nil
			}
			seen = &notificationSeen{URL: ti.URL, Error: err.Error()}
			if wctx.Err() == nil {
				// It closed while loading; wait for the next one.
				s.log.Debug("notification page vanished", "error", err)
				continue
			}
		}
		select {
		case <-changed:
		case <-wctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return NotificationResult{}, sdk.Errorf(sdk.CodeCancelled, "cancelled while waiting for the notification page")
			}
			return NotificationResult{}, s.notificationTimeout(timeout, start, seen)
		}
	}
}

// notificationSeen is a notification page that opened but did not load or
// render in time.
type notificationSeen struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

// refusedEarlier is how far before the wait a console line of Chrome
// refusing the popup's window is still taken as the cause: it comes right
// after the dapp's request, usually before mm_wait_for_notification.
const refusedEarlier = time.Minute

// notificationTimeout explains a notification page that never came (or
// came, as seen, and never rendered) from the console errors of the
// extension (its service worker and pages) and the dapps logged since the
// wait started (start), the wallet build's benign lines left out (a
// refused popup window counts from refusedEarlier before, and is then
// listed in the details' consoleErrors too); the message says what was
// waited for and lists the session's tabs, as the details do.
func (s *Chrome) notificationTimeout(timeout time.Duration, start time.Time, seen *notificationSeen) error {
	logged := relevant(s.ConsoleSince(start))
	tabs := s.Tabs().Tracked
	details := map[string]any{"consoleErrors": logged, "tabs": tabs, "waitedFor": s.notificationWanted()}
	var open []string
	for _, t := range tabs {
		open = append(open, t.Role+" "+t.URL)
	}
	tabList := "the tabs were: " + strings.Join(open, ", ")
	if len(open) == 0 {
		tabList = "no tab was open"
	}
	if seen != nil {
		details["notificationPage"] = seen
		return sdk.Errorf(sdk.CodeNotificationTimeout,
			"a notification page opened (%s) but did not load and render within %s: %s; %s", seen.URL, timeout, seen.Error, tabList).
			WithDetails(details)
	}
	waited := fmt.Sprintf("no notification page (%s) opened within %s", s.notificationWanted(), timeout)
	for _, l := range relevant(s.ConsoleSince(start.Add(-refusedEarlier))) {
		if strings.Contains(strings.ToLower(l), "bounds") {
			if !slices.Contains(logged, l) {
				// logged before the wait: the details name the cause too
				details["consoleErrors"] = append([]string{l}, logged...)
			}
			return sdk.Errorf(sdk.CodeNotificationTimeout,
				"%s: the wallet tried to open its popup and Chrome refused the window (%q). A popup must be at least half inside the screen; mmcp gives headless Chrome a 1920x1080 screen, so when headed make the display at least as large as the browser window (or launch headless); %s", waited, l, tabList).
				WithDetails(details)
		}
	}
	if len(logged) > 0 {
		last := logged[max(0, len(logged)-3):]
		return sdk.Errorf(sdk.CodeNotificationTimeout,
			"%s; the console showed errors while waiting (the extension's or the dapp's): %s; %s", waited, strings.Join(last, " | "), tabList).
			WithDetails(details)
	}
	return sdk.Errorf(sdk.CodeNotificationTimeout,
		"%s and no console error was seen while waiting: no request that needs approval reached the wallet (did the dapp's call run? is the dapp already connected, so no popup is needed?); %s", waited, tabList).
		WithDetails(details)
}

// notificationWanted is the page WaitForNotification waits for.
func (s *Chrome) notificationWanted() string {
	return s.extURL(s.pages.NotificationPage)
}

// WaitPopupClosed is called after a click in the notification popup page
// (at hrefBefore before the click). It reports whether the wallet closes
// the popup within PopupCloseWait. It stops early, with false, when the
// popup routes to another request or step (a non-empty route other than
// the one clicked on): that popup stays open.
func (s *Chrome) WaitPopupClosed(ctx context.Context, page *rod.Page, hrefBefore string) bool {
	ctx, cancel := context.WithTimeout(ctx, PopupCloseWait)
	defer cancel()
	before := HashRoute(hrefBefore)
	for {
		changed := s.tabs.wait()
		if _, ok := s.tabs.get(page.TargetID); !ok {
			return true
		}
		var href string
		ectx, ecancel := context.WithTimeout(ctx, 250*time.Millisecond)
		err := discovery.Eval(ectx, page, `location.href`, discovery.EvalOptions{Idempotent: true}, &href)
		ecancel()
		if err == nil {
			if r := HashRoute(href); r != before && r != "" && r != "/" {
				return false
			}
		}
		select {
		case <-changed:
		case <-time.After(3 * pollInterval):
		case <-ctx.Done():
			_, ok := s.tabs.get(page.TargetID)
			return !ok
		}
	}
}

// PageHref is page's current location (the isolated world's view), "" when
// it cannot be read.
func (s *Chrome) PageHref(ctx context.Context, page *rod.Page) string {
	var href string
	if err := discovery.Eval(ctx, page, `location.href`, discovery.EvalOptions{Idempotent: true}, &href); err != nil {
		return ""
	}
	return href
}
