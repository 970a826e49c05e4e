package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
)

// Reloaded is the extension reloaded in place by ReloadExtension.
type Reloaded struct {
	// Back is the wallet page reopened: the one the agent was on, else
	// home.
	Back string
	// Page is the reopened page, active and rendered (bounded).
	Page *rod.Page
	// Worker says a new service worker of the reloaded extension runs:
	// the background restarted on the files as they are now.
	Worker bool
	// By says what restarted the extension: ByMmcp (chrome://extensions'
	// reload, from disk) or BySelf (the build's own live reload had
	// restarted it already).
	By string
	// Split is the time of each step in ms: trigger (asking Chrome to
	// reload), worker (the new service worker seen), page (the wallet page
	// loaded again and rendered).
	Split map[string]int64
}

// What restarted the extension (Reloaded.By).
const (
	ByMmcp = "mmcp"
	BySelf = "the extension itself (the build's live reload)"
	// ByPages: only the extension's pages were loaded again
	// (ReloadPages); its background runs on.
	ByPages = "mmcp, the extension's pages only"
	// ByRestart: the extension's service worker was stopped and started
	// again (RestartBackground), the extension not reloaded.
	ByRestart = "mmcp, the service worker restarted"
)

// stopWait bounds the wait for a stopped service worker to go.
const stopWait = 2 * time.Second

// workerWait bounds the wait for the reloaded extension's new service
// worker; the pages are reopened after it either way (a worker that
// starts late is recognised then).
const workerWait = 10 * time.Second

// ReloadExtension reloads the unpacked extension in the running Chrome
// (its files were rebuilt in place): no new Chrome, the chain and the dapp
// tabs stay. The reload comes from outside the wallet's code: the
// chrome://extensions page asks Chrome to load the extension again from
// disk (chrome.developerPrivate.reload), which evaluates nothing in the
// extension, whose globals LavaMoat scuttles in MetaMask's builds. When
// the extension restarted itself since mmcp last saw it (a new service
// worker: the build's live reload), that restart is taken instead. It
// waits (bounded by workerWait within ctx) for the new service worker,
// reopens the wallet page the agent was on (home when it was on no wallet
// page), makes it active and waits for it to render. The wallet's screen
// and lock state after it are host/wallet's (Wallet.Reload). The error
// says what failed, for the caller's diagnosis; r.Back is set even then.
func (s *Chrome) ReloadExtension(ctx context.Context) (Reloaded, error) {
	back := s.backURL()
	r := Reloaded{Back: back, By: ByMmcp, Split: map[string]int64{}}
	lap := lapper(r.Split)
	known := s.knownWorkers()
	old := s.liveWorkers(ctx)
	s.tabs.keepWorkers(s.extID, old)
	fresh := newOnes(old, known)
	if len(known) > 0 && len(fresh) == 0 && len(old) == 0 {
		// the workers mmcp knew are gone: the extension is restarting
		wctx, cancel := context.WithTimeout(ctx, workerWait)
		fresh = s.awaitNewWorkers(wctx, known)
		cancel()
	}
	if len(fresh) > 0 {
		r.By = BySelf
		s.log.Debug("the extension restarted itself since the last reload", "workers", fresh)
	} else {
		if err := s.triggerReload(ctx); err != nil {
			return r, fmt.Errorf("the extension could not be reloaded: %v", err)
		}
		lap("trigger")
		wctx, cancel := context.WithTimeout(ctx, workerWait)
		fresh = s.awaitNewWorkers(wctx, old)
		cancel()
	}
	s.listenTo(ctx, fresh)
	lap("worker")

	page, err := s.reopen(ctx, back)
	if err != nil {
		return r, fmt.Errorf("the wallet page %s did not load again: %v%s", back, err, r.NoWorker())
	}
	r.Page = page
	_, _ = s.waitRendered(ctx, page)
	if len(fresh) == 0 {
		// a worker that started only for the page
		fresh = newOnes(s.liveWorkers(ctx), old)
		s.listenTo(ctx, fresh)
	}
	r.Worker = len(fresh) > 0
	live := s.liveWorkers(ctx)
	s.setKnownWorkers(live)
	s.tabs.keepWorkers(s.extID, live)
	lap("page")
	return r, nil
}

// lapper returns a func that records, under a step's name, the ms since
// the previous lap (the first: since lapper was called).
func lapper(split map[string]int64) func(step string) {
	last := time.Now()
	return func(step string) {
		now := time.Now()
		split[step] += now.Sub(last).Milliseconds()
		last = now
	}
}

// ReloadPages loads the extension's pages again, not its background (a
// rebuild that changed only files the pages load: they read them when they
// load): the wallet page the agent was on (home when it was on no wallet
// page) reopened as ReloadExtension does, its other open pages (a
// notification popup) reloaded; the background, its service worker and
// its state (unlocked) run on. r.Worker is false: no new worker.
func (s *Chrome) ReloadPages(ctx context.Context) (Reloaded, error) {
	back := s.backURL()
	r := Reloaded{Back: back, By: ByPages, Split: map[string]int64{}}
	lap := lapper(r.Split)
	page, err := s.reopen(ctx, back)
	if err != nil {
		return r, fmt.Errorf("the wallet page %s did not load again: %v", back, err)
	}
	r.Page = page
	for _, t := range s.tabs.list() {
		if WalletRole(t.Role) && t.Page != nil && t.ID != page.TargetID {
			if err := s.loadAnew(ctx, t.Page, t.URL); err != nil {
				s.log.Debug("an extension page did not load again", "url", t.URL, "error", err)
			}
		}
	}
	_, _ = s.waitRendered(ctx, page)
	lap("page")
	return r, nil
}

// RestartBackground restarts the extension's background on the files it
// runs, without reloading the extension: its service workers are stopped
// (Target.closeTarget: nothing is evaluated in them) and the wallet page
// the agent was on is reopened as ReloadExtension does, which starts a new
// worker. What a reload of the extension drops stays: its session storage
// (where MetaMask keeps the unlocked vault's key across worker restarts,
// so the wallet comes back unlocked when the vault is the one it had) and
// the content scripts of the dapp tabs. A worker that does not stop, or no
// new one, is an error: the caller reloads the extension instead.
func (s *Chrome) RestartBackground(ctx context.Context) (Reloaded, error) {
	back := s.backURL()
	r := Reloaded{Back: back, By: ByRestart, Split: map[string]int64{}}
	lap := lapper(r.Split)
	old := s.liveWorkers(ctx)
	if len(old) == 0 {
		return r, fmt.Errorf("no service worker of the extension runs")
	}
	for _, id := range old {
		if _, err := (proto.TargetCloseTarget{TargetID: id}).Call(s.browser.Context(ctx)); err != nil {
			return r, fmt.Errorf("stopping the service worker: %v", err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, stopWait)
	gone := s.awaitWorkersGone(wctx, old)
	cancel()
	if !gone {
		return r, fmt.Errorf("the service worker did not stop")
	}
	s.tabs.keepWorkers(s.extID, s.liveWorkers(ctx))
	lap("trigger")
	page, err := s.reopen(ctx, back)
	if err != nil {
		return r, fmt.Errorf("the wallet page %s did not load again: %v", back, err)
	}
	r.Page = page
	_, _ = s.waitRendered(ctx, page)
	lap("page")
	// The page started the worker again, under the target id of the one
	// stopped (the same version of the script) or a new one.
	wctx, cancel = context.WithTimeout(ctx, workerWait)
	live := s.awaitLiveWorkers(wctx)
	cancel()
	s.listenTo(ctx, live)
	r.Worker = len(live) > 0
	s.setKnownWorkers(live)
	s.tabs.keepWorkers(s.extID, live)
	lap("worker")
	if !r.Worker {
		return r, fmt.Errorf("no new service worker started%s", r.NoWorker())
	}
	return r, nil
}

// awaitWorkersGone waits (within ctx) until none of the service workers
// old runs, as Chrome lists them (a worker is not always reported
// destroyed); false when ctx ended first.
func (s *Chrome) awaitWorkersGone(ctx context.Context, old []proto.TargetTargetID) bool {
	for {
		changed := s.tabs.wait()
		if live := s.liveWorkers(ctx); len(newOnes(live, newOnes(live, old))) == 0 {
			return true // none of live is in old
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
	}
}

// awaitLiveWorkers waits (within ctx) until a service worker of the
// extension runs, as Chrome lists them, and returns them (none when ctx
// ended first).
func (s *Chrome) awaitLiveWorkers(ctx context.Context) []proto.TargetTargetID {
	for {
		changed := s.tabs.wait()
		if live := s.liveWorkers(ctx); len(live) > 0 {
			return live
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return nil
		}
	}
}

// backURL is the wallet page a reload reopens: the active one when it is
// a wallet page, else home's.
func (s *Chrome) backURL() string {
	back := s.homeURL()
	if act, ok := s.tabs.active(); ok && act.Role == RoleExtension {
		back = act.URL
	} else if home, ok := s.tabs.home(); ok && home.Role == RoleExtension {
		back = home.URL
	}
	return back
}

// newOnes lists the ids in ids that are not in old.
func newOnes(ids, old []proto.TargetTargetID) []proto.TargetTargetID {
	var out []proto.TargetTargetID
	for _, id := range ids {
		if !slices.Contains(old, id) {
			out = append(out, id)
		}
	}
	return out
}

// knownWorkers are the extension's service workers as mmcp last saw them
// (launch, the last reload).
func (s *Chrome) knownWorkers() []proto.TargetTargetID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.workers)
}

func (s *Chrome) setKnownWorkers(ids []proto.TargetTargetID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.workers = ids
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

// triggerReload has chrome://extensions load the unpacked extension again
// from disk (chrome.developerPrivate.reload: nothing is evaluated in the
// extension), switching the profile to developer mode first when the host
// did not create it (without it, a reload disables the extension). An
// exception of the evaluation is the failure it is.
func (s *Chrome) triggerReload(ctx context.Context) error {
	expr := fmt.Sprintf(`chrome.developerPrivate.reload(%q, {failQuietly: true}).then(() => true)`, s.extID)
	if !s.ownsDir {
		expr = `chrome.developerPrivate.updateProfileConfiguration({inDeveloperMode: true}).then(() => ` + expr + `)`
	}
	return s.onExtensionsPage(ctx, expr)
}

// awaitNewWorkers waits (within ctx) for service workers of the extension
// that are not in old, as the target events report them, and returns them
// (none when none came).
func (s *Chrome) awaitNewWorkers(ctx context.Context, old []proto.TargetTargetID) []proto.TargetTargetID {
	for {
		changed := s.tabs.wait()
		if fresh := newOnes(s.tabs.workersOf(s.extID), old); len(fresh) > 0 {
			return fresh
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// reopen loads url in the home tab when the reload left it open, else in a
// new home tab, and makes it active. The page gets a new document of the
// reloaded extension even when the tab already shows url (Chrome keeps an
// extension's tabs across a reload, on its error page or the old document).
func (s *Chrome) reopen(ctx context.Context, url string) (*rod.Page, error) {
	if home, ok := s.tabs.home(); ok {
		if page, err := s.attach(home.ID); err == nil {
			if err := s.loadAnew(ctx, page, url); err == nil {
				s.activate(ctx, home.ID)
				return page, nil
			}
		}
	}
	return s.newTab(ctx, url, true)
}

// loadAnew loads url in page as a new document: a navigation that only
// changed the fragment (the tab showed url already) is followed by a
// reload.
func (s *Chrome) loadAnew(ctx context.Context, page *rod.Page, url string) error {
	_ = discovery.Eval(ctx, page, `globalThis.__mmcpOld = true`, discovery.EvalOptions{}, nil)
	res, err := proto.PageNavigate{URL: url}.Call(page.Context(ctx))
	if err == nil && res.ErrorText != "" {
		err = fmt.Errorf("%s", res.ErrorText)
	}
	if err == nil && res.LoaderID == "" {
		err = proto.PageReload{}.Call(page.Context(ctx))
	}
	if err != nil {
		return fmt.Errorf("navigate to %s: %w", url, err)
	}
	return s.waitLoaded(ctx, page, true, nil)
}
