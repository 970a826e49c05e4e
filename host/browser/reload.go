package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/sdk"
)

// reloadJS reloads the extension from one of its own contexts.
const reloadJS = `chrome.runtime.reload()`

// ReloadOptions configure Reload.
type ReloadOptions struct {
	// Password unlocks the wallet when it comes back locked.
	Password string
	// Settle bounds the whole reload: the extension going and coming back,
	// its first screen, the unlock.
	Settle time.Duration
}

// ReloadResult is what an in-place reload did.
type ReloadResult struct {
	ReloadMs int64 `json:"reloadMs"`
	// Screen is the wallet screen shown now, URL its page.
	Screen string `json:"screen"`
	URL    string `json:"url"`
	// Reopened is the wallet page reopened: the one the agent was on, else
	// home.
	Reopened string `json:"reopened"`
	// Unlocked says the wallet came back locked and was unlocked again.
	Unlocked   bool `json:"unlocked"`
	IsUnlocked bool `json:"isUnlocked"`
	// ConsoleErrors are the extension's console errors since the reload.
	ConsoleErrors []string `json:"consoleErrors"`
}

// Reload reloads the unpacked extension in the running Chrome (its files
// were rebuilt in place): no new Chrome, the chain and the dapp tabs stay.
// It asks the extension's service worker (else one of its pages) for
// chrome.runtime.reload(), waits for a new service worker, reopens the
// wallet page the agent was on (home when it was on no wallet page) and
// makes it active, waits for its screen and unlocks again when it came back
// locked. A reloaded build that shows its error page, never gets a service
// worker or whose screen never settles within o.Settle is MM_RELOAD_FAILED,
// with the extension's console errors and a screenshot.
func (s *Session) Reload(ctx context.Context, o ReloadOptions) (ReloadResult, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.Settle)
	defer cancel()
	back := s.homeURL()
	if act, ok := s.tabs.active(); ok && act.Role == RoleExtension {
		back = act.URL
	} else if home, ok := s.tabs.home(); ok && home.Role == RoleExtension {
		back = home.URL
	}
	res := ReloadResult{Reopened: back}
	if err := s.ensureDevMode(ctx); err != nil {
		s.log.Warn("developer mode not switched on: the reload may disable the extension", "error", err)
	}
	old := s.liveWorkers(ctx)
	if err := s.triggerReload(ctx, old); err != nil {
		return res, s.reloadFailed(ctx, start, "the extension could not be asked to reload: "+err.Error())
	}
	fresh := s.awaitNewWorkers(ctx, old)
	worker := len(fresh) > 0
	s.listenTo(ctx, fresh)

	page, err := s.reopen(ctx, back)
	if err != nil {
		return res, s.reloadFailed(ctx, start, fmt.Sprintf("the wallet page %s did not load again: %v%s", back, err, noWorker(worker)))
	}
	_, _ = s.waitRendered(ctx, page)
	st, err := s.WaitForScreen(ctx)
	switch {
	case err != nil:
		return res, s.reloadFailed(ctx, start, fmt.Sprintf("the reloaded wallet did not reach a recognized screen within %s%s", o.Settle, noWorker(worker)))
	case st.CurrentScreen == "error":
		return res, s.reloadFailed(ctx, start, "the reloaded wallet shows its error page")
	}
	if !st.IsUnlocked && o.Password != "" && st.CurrentScreen == "unlock" {
		if err := s.Unlock(ctx, o.Password); err != nil {
			return res, s.reloadFailed(ctx, start, "the reloaded wallet came back locked and did not unlock: "+sdk.AsError(err).Message)
		}
		res.Unlocked = true
		if cur := s.pageURL(ctx, page); cur != back && routeOf(back) != "" {
			// The unlock went home: back to the screen the agent was on.
			if err := s.navigate(ctx, page, back); err == nil {
				_, _ = s.waitRendered(ctx, page)
			}
		}
		if st, err = s.WaitForScreen(ctx); err != nil {
			return res, s.reloadFailed(ctx, start, "the reloaded wallet's screen did not settle after the unlock")
		}
	}
	res.Screen, res.URL, res.IsUnlocked = st.CurrentScreen, st.CurrentURL, st.IsUnlocked
	res.ConsoleErrors = s.consoleSince(start)
	res.ReloadMs = time.Since(start).Milliseconds()
	return res, nil
}

// routeOf is the hash route of an extension URL ("" for none or home).
func routeOf(u string) string {
	_, r, _ := strings.Cut(u, "#")
	if r == "/" {
		return ""
	}
	return r
}

func noWorker(worker bool) string {
	if worker {
		return ""
	}
	return " (no service worker of the reloaded extension appeared: did its background script fail?)"
}

// liveWorkers lists the extension's service workers as Chrome has them now
// (the tracker may still hold a worker of the unloaded extension).
func (s *Session) liveWorkers(ctx context.Context) []proto.TargetTargetID {
	res, err := proto.TargetGetTargets{}.Call(s.browser.Context(ctx))
	if err != nil {
		return nil
	}
	var ids []proto.TargetTargetID
	for _, ti := range res.TargetInfos {
		if ti.Type == proto.TargetTargetInfoTypeServiceWorker && extensionIDFromURL(ti.URL) == s.extID {
			ids = append(ids, ti.TargetID)
		}
	}
	return ids
}

// triggerReload evaluates chrome.runtime.reload() in one of the
// extension's service workers, else in one of its pages' main world.
func (s *Session) triggerReload(ctx context.Context, workers []proto.TargetTargetID) error {
	var errs []string
	for _, id := range workers {
		a, err := proto.TargetAttachToTarget{TargetID: id, Flatten: true}.Call(s.browser.Context(ctx))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = s.browser.Call(cctx, string(a.SessionID), "Runtime.evaluate", proto.RuntimeEvaluate{Expression: reloadJS})
		cancel()
		if err == nil {
			return nil
		}
		errs = append(errs, err.Error())
	}
	for _, role := range []string{RoleExtension, RoleNotification} {
		for _, ti := range s.tabs.find(role, "") {
			page, err := s.attach(ti.ID)
			if err != nil {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			r, err := proto.RuntimeEvaluate{Expression: reloadJS}.Call(page.Context(cctx))
			cancel()
			switch {
			case err == nil && r.ExceptionDetails == nil:
				return nil
			case err != nil:
				errs = append(errs, err.Error())
			default:
				errs = append(errs, r.ExceptionDetails.Text)
			}
		}
	}
	if len(errs) == 0 {
		return fmt.Errorf("the extension has no service worker and no open page")
	}
	return fmt.Errorf("%s", strings.Join(errs, "; "))
}

// awaitNewWorkers waits (within ctx) for service workers of the extension
// that are not in old, and returns them (none when none came).
func (s *Session) awaitNewWorkers(ctx context.Context, old []proto.TargetTargetID) []proto.TargetTargetID {
	for {
		var fresh []proto.TargetTargetID
		for _, id := range s.liveWorkers(ctx) {
			if !slices.Contains(old, id) {
				fresh = append(fresh, id)
			}
		}
		if len(fresh) > 0 {
			return fresh
		}
		if err := sleepCtx(ctx, 2*pollInterval); err != nil {
			return nil
		}
	}
}

// reopen loads url in the home tab when the reload left it open, else in a
// new home tab, and makes it active.
func (s *Session) reopen(ctx context.Context, url string) (*rod.Page, error) {
	if home, ok := s.tabs.home(); ok {
		if page, err := s.attach(home.ID); err == nil {
			if err := s.navigate(ctx, page, url); err == nil {
				s.activate(ctx, home.ID)
				return page, nil
			}
		}
	}
	return s.newTab(ctx, url, true)
}

// reloadFailed is MM_RELOAD_FAILED with the browser's diagnosis.
func (s *Session) reloadFailed(ctx context.Context, since time.Time, what string) error {
	d := s.Diagnose(ctx, "reload-failed-"+time.Now().UTC().Format("20060102-150405"))
	d.ConsoleErrors = s.consoleSince(since)
	msg := fmt.Sprintf("%s (last screen %q at %s; %d console errors of the extension since the reload in details.consoleErrors", what, d.LastScreen, d.LastURL, len(d.ConsoleErrors))
	if d.Screenshot != "" {
		msg += "; screenshot " + d.Screenshot
	}
	msg += "): fix the source; the next good rebuild reloads the session again, no relaunch needed"
	return sdk.Errorf(sdk.CodeReloadFailed, "%s", msg).WithDetails(map[string]any{
		"lastScreen": d.LastScreen, "lastUrl": d.LastURL, "consoleErrors": d.ConsoleErrors, "screenshot": d.Screenshot,
	})
}
