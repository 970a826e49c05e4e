package session

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// The tab, navigation, clipboard and screenshot tools on the call's
// session's browser.

// onActive runs fn on the call's session (MM_NO_ACTIVE_SESSION, ...
// without one).
func onActive[T any](ctx context.Context, m *Manager, fn func(s *Session) (T, error)) (T, error) {
	s, err := m.Active(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(s)
}

// Navigate goes to screen (home, settings, notification, url); with newTab
// the URL opens in a new tab. A recorded navigation reads the wallet's app
// state for its record as it goes (ReadAppAhead).
func (m *Manager) Navigate(ctx context.Context, screen, url string, newTab bool) (browser.NavigateResult, error) {
	return onActive(ctx, m, func(s *Session) (browser.NavigateResult, error) {
		if tools.Recorded(ctx) {
			ctx = s.ReadAppAhead(ctx, screen)
		}
		if newTab {
			return s.wallet.OpenTab(ctx, url)
		}
		return s.wallet.Navigate(ctx, screen, url)
	})
}

// WaitForNotification waits for the wallet's notification popup and makes
// it the active page.
func (m *Manager) WaitForNotification(ctx context.Context, timeout time.Duration) (browser.NotificationResult, error) {
	return onActive(ctx, m, func(s *Session) (browser.NotificationResult, error) {
		return s.wallet.WaitForNotification(ctx, timeout)
	})
}

// SwitchTab makes the tab with role or URL prefix active.
func (m *Manager) SwitchTab(ctx context.Context, role, url string) (browser.SwitchResult, error) {
	return onActive(ctx, m, func(s *Session) (browser.SwitchResult, error) {
		return s.wallet.SwitchTab(ctx, role, url)
	})
}

// CloseTab closes the tab with role or URL prefix.
func (m *Manager) CloseTab(ctx context.Context, role, url string) (browser.CloseResult, error) {
	return onActive(ctx, m, func(s *Session) (browser.CloseResult, error) {
		return s.wallet.CloseTab(ctx, role, url)
	})
}

// Clipboard reads or writes the browser's clipboard.
func (m *Manager) Clipboard(ctx context.Context, action, text string) (browser.ClipboardResult, error) {
	return onActive(ctx, m, func(s *Session) (browser.ClipboardResult, error) {
		return s.wallet.Clipboard(ctx, action, text)
	})
}

// Shot is a screenshot saved for the call: the answer, the record's
// artifacts.screenshot, and with base64 an image for the client.
type Shot struct {
	browser.ScreenshotResult
}

// RecordScreenshot implements tools.Screenshotted.
func (r Shot) RecordScreenshot() *tools.ScreenshotRef {
	if r.Path == "" {
		return nil // none saved
	}
	return &tools.ScreenshotRef{Path: r.Path, Width: r.Width, Height: r.Height}
}

// ResultImages implements tools.Imaged.
func (r Shot) ResultImages() []tools.Image {
	if r.Base64 == "" {
		return nil
	}
	return []tools.Image{{MIMEType: "image/png", Base64: r.Base64}}
}

// Screenshot saves a PNG of the active page (mm_screenshot); a recorded
// call reads its record's state beside it.
func (m *Manager) Screenshot(ctx context.Context, o browser.ScreenshotOptions) (Shot, error) {
	return onActive(ctx, m, func(s *Session) (Shot, error) {
		readAhead(ctx, s)
		res, err := s.wallet.Screenshot(ctx, o)
		return Shot{res}, err
	})
}

// ConsoleErrors are the console errors the session's pages logged.
func (s *Session) ConsoleErrors() []string { return s.wallet.ConsoleErrors() }
