package browser

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultNotificationTimeout is mm_wait_for_notification's default.
const DefaultNotificationTimeout = 15 * time.Second

// NotificationResult is mm_wait_for_notification's result.
type NotificationResult struct {
	Found   bool   `json:"found"`
	PageURL string `json:"pageUrl"`
}

// WaitForNotification waits, bounded by ctx and timeout (0 means
// DefaultNotificationTimeout), for the wallet's notification page (the
// newest one when several are open, including one already open), waits for
// it to load and makes it the active page. A popup that opens as
// about:blank and navigates later is seen when it navigates. Errors:
// MM_NOTIFICATION_TIMEOUT, MM_CANCELLED.
func (s *Session) WaitForNotification(ctx context.Context, timeout time.Duration) (NotificationResult, error) {
	if timeout <= 0 {
		timeout = DefaultNotificationTimeout
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		changed := s.tabs.wait()
		if found := s.tabs.find(RoleNotification, ""); len(found) > 0 {
			ti := found[len(found)-1]
			page, err := s.attach(ti.ID)
			if err == nil {
				err = s.waitLoaded(wctx, page, false, func(href string) bool {
					return strings.HasPrefix(href, "chrome-extension://"+s.extID+"/")
				})
			}
			if err == nil {
				s.activate(ctx, ti.ID)
				return NotificationResult{Found: true, PageURL: s.pageURL(ctx, page)}, nil
			}
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
			return NotificationResult{}, sdk.Errorf(sdk.CodeNotificationTimeout, "no notification page opened within %s: did the dapp request reach the wallet?", timeout)
		}
	}
}
