package session

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// The tab, navigation and capture work of the tools on the session's
// browser. Like interact.go: a tool's handler decodes its input, calls
// one of these and shapes the answer.

// Tabs is the tracked tabs block (spec 001).
func (s *Session) Tabs() observation.Tabs { return s.browser.Tabs() }

// Navigate goes to screen (home, settings, notification, url); with newTab
// the URL opens in a new tab.
func (s *Session) Navigate(ctx context.Context, screen, url string, newTab bool) (browser.NavigateResult, error) {
	if newTab {
		return s.browser.OpenTab(ctx, url)
	}
	return s.browser.Navigate(ctx, screen, url)
}

// WaitForNotification waits for the wallet's notification popup and makes
// it the active page.
func (s *Session) WaitForNotification(ctx context.Context, timeout time.Duration) (browser.NotificationResult, error) {
	return s.browser.WaitForNotification(ctx, timeout)
}

// SwitchTab makes the tab with role or URL prefix active.
func (s *Session) SwitchTab(ctx context.Context, role, url string) (browser.SwitchResult, error) {
	return s.browser.SwitchTab(ctx, role, url)
}

// CloseTab closes the tab with role or URL prefix.
func (s *Session) CloseTab(ctx context.Context, role, url string) (browser.CloseResult, error) {
	return s.browser.CloseTab(ctx, role, url)
}

// Clipboard reads or writes the browser's clipboard.
func (s *Session) Clipboard(ctx context.Context, action, text string) (browser.ClipboardResult, error) {
	return s.browser.Clipboard(ctx, action, text)
}

// Screenshot saves a PNG of the active page.
func (s *Session) Screenshot(ctx context.Context, o browser.ScreenshotOptions) (browser.ScreenshotResult, error) {
	return s.browser.Screenshot(ctx, o)
}

// CaptureSteady captures the active page (or an element of it) once it
// holds still, for a visual check.
func (s *Session) CaptureSteady(ctx context.Context, o browser.SteadyOptions) (browser.SteadyCapture, error) {
	return s.browser.CaptureSteady(ctx, s.Refs(), o)
}

// ElementsUnder names the testids and elements whose boxes hold the
// changed pixels of each box of a capture's page.
func (s *Session) ElementsUnder(ctx context.Context, shot browser.SteadyCapture, boxes []discovery.Box, changed discovery.Changed) ([]discovery.Under, error) {
	return discovery.ElementsUnder(ctx, shot.Page, s.Refs(), boxes, changed)
}

// ConsoleErrors are the console errors the session's pages logged.
func (s *Session) ConsoleErrors() []string { return s.browser.ConsoleErrors() }
