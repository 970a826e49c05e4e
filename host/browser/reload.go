package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// reloadJS reloads the extension from one of its own contexts.
const reloadJS = `chrome.runtime.reload()`

// Reloaded is the extension reloaded in place by ReloadExtension.
type Reloaded struct {
	// Back is the wallet page reopened: the one the agent was on, else
	// home.
	Back string
	// Page is the reopened page, active and rendered (bounded).
	Page *rod.Page
	// Worker says a service worker of the reloaded extension appeared.
	Worker bool
}

// ReloadExtension reloads the unpacked extension in the running Chrome
// (its files were rebuilt in place): no new Chrome, the chain and the dapp
// tabs stay. It asks the extension's service worker (else one of its
// pages) for chrome.runtime.reload(), waits (within ctx) for a new service
// worker, reopens the wallet page the agent was on (home when it was on no
// wallet page), makes it active and waits for it to render. The wallet's
// screen and lock state after it are host/wallet's (Wallet.Reload). The
// error says what failed, for the caller's diagnosis; r.Back is set even
// then.
func (s *Chrome) ReloadExtension(ctx context.Context) (Reloaded, error) {
	back := s.homeURL()
	if act, ok := s.tabs.active(); ok && act.Role == RoleExtension {
		back = act.URL
	} else if home, ok := s.tabs.home(); ok && home.Role == RoleExtension {
		back = home.URL
	}
	r := Reloaded{Back: back}
	if err := s.ensureDevMode(ctx); err != nil {
		s.log.Warn("developer mode not switched on: the reload may disable the extension", "error", err)
	}
	old := s.liveWorkers(ctx)
	if err := s.triggerReload(ctx, old); err != nil {
		return r, fmt.Errorf("the extension could not be asked to reload: %v", err)
	}
	fresh := s.awaitNewWorkers(ctx, old)
	r.Worker = len(fresh) > 0
	s.listenTo(ctx, fresh)

	page, err := s.reopen(ctx, back)
	if err != nil {
		return r, fmt.Errorf("the wallet page %s did not load again: %v%s", back, err, r.NoWorker())
	}
	r.Page = page
	_, _ = s.waitRendered(ctx, page)
	return r, nil
}

// ReturnTo loads url again in page when page left it (an unlock that went
// home) and url is not the home page, and waits for it to render.
func (s *Chrome) ReturnTo(ctx context.Context, page *rod.Page, url string) {
	if cur := s.pageURL(ctx, page); cur != url && routeOf(url) != "" {
		if err := s.navigate(ctx, page, url); err == nil {
			_, _ = s.waitRendered(ctx, page)
		}
	}
}

// routeOf is the hash route of an extension URL ("" for none or home).
func routeOf(u string) string {
	_, r, _ := strings.Cut(u, "#")
	if r == "/" {
		return ""
	}
	return r
}

// NoWorker is a note for a failure's message when no service worker of the
// reloaded extension appeared, else "".
func (r Reloaded) NoWorker() string {
	if r.Worker {
		return ""
	}
	return " (no service worker of the reloaded extension appeared: did its background script fail?)"
}

// liveWorkers lists the extension's service workers as Chrome has them now
// (the tracker may still hold a worker of the unloaded extension).
func (s *Chrome) liveWorkers(ctx context.Context) []proto.TargetTargetID {
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
func (s *Chrome) triggerReload(ctx context.Context, workers []proto.TargetTargetID) error {
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
func (s *Chrome) awaitNewWorkers(ctx context.Context, old []proto.TargetTargetID) []proto.TargetTargetID {
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
		if err := Sleep(ctx, 2*pollInterval); err != nil {
			return nil
		}
	}
}

// reopen loads url in the home tab when the reload left it open, else in a
// new home tab, and makes it active.
func (s *Chrome) reopen(ctx context.Context, url string) (*rod.Page, error) {
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
