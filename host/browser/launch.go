package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// The screen headless Chrome gets: larger than the window, so a popup at
// the window's top right is on screen.
const headlessScreen = "{0,0 1920x1080}"

// extensionWait bounds the search for the extension's service worker when
// its id cannot be computed or the computed id does not load.
const extensionWait = 5 * time.Second

// Launch starts Chrome with the extension (or attaches to Options.CDPURL),
// starts the target event loop, opens the extension home page in the first
// tab and returns once that page has loaded. Failures are *sdk.Error with
// MM_LAUNCH_FAILED (or MM_INVALID_INPUT for bad options); nothing is left
// running after a failure.
func Launch(ctx context.Context, o Options) (*Chrome, error) {
	o = o.withDefaults()
	if o.Pages.HomePage == "" {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "no extension home page (Options.Pages)")
	}
	s := &Chrome{
		opts:     o,
		log:      o.Log.Named("browser"),
		pages:    o.Pages,
		cache:    discovery.NewCache(),
		health:   newHealth(),
		requests: confirm.NewLog(),
		granted:  map[string]bool{},
		focusSet: map[proto.TargetTargetID]bool{},
	}

	extDir, err := resolveExtension(o.ExtensionPath)
	if err != nil {
		return nil, err
	}
	if extDir != "" {
		if s.extID, err = ExtensionIDFromPath(extDir); err != nil {
			return nil, sdk.Errorf(sdk.CodeInvalidInput, "extension %s: %w", extDir, err)
		}
	}
	s.tabs = newTracker(o.Pages, s.extID)

	wsURL := ""
	if o.CDPURL != "" {
		if wsURL, err = launcher.ResolveURL(o.CDPURL); err != nil {
			return nil, sdk.Errorf(sdk.CodeLaunchFailed, "cannot reach Chrome at %s: %w", o.CDPURL, err)
		}
	} else {
		if extDir == "" {
			return nil, sdk.Errorf(sdk.CodeInvalidInput, "an extension path is required to launch Chrome")
		}
		if wsURL, err = s.startChrome(ctx, extDir); err != nil {
			return nil, err
		}
	}
	s.log.Debug("chrome started")
	if err := s.connect(ctx, wsURL); err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	s.log.Debug("connected")
	if err := s.openHome(ctx); err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	s.log.Debug("home page loaded")
	granted := make(chan struct{})
	go func() {
		defer close(granted)
		s.grantClipboard(ctx, "chrome-extension://"+s.extID)
	}()
	if s.launcher != nil {
		s.fitViewport(ctx)
	}
	if s.headed {
		s.fitWindow(ctx)
	}
	<-granted
	return s, nil
}

// resolveExtension makes dir absolute and symlink-free (Chrome hashes the
// path it resolved) and checks it holds a manifest.
func resolveExtension(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "extension path %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(abs, "manifest.json")); err != nil {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "extension path %s has no manifest.json: build the extension first", abs)
	}
	return abs, nil
}

// ProfilePrefix starts the name of the Chrome profile directories the host
// creates in os.TempDir: mmcp-chrome-<host pid>-<random>.
const ProfilePrefix = "mmcp-chrome-"

// startChrome launches Chrome in its own process group under leakless (so
// it dies with this process even on SIGKILL) and returns its DevTools URL.
func (s *Chrome) startChrome(ctx context.Context, extDir string) (string, error) {
	bin, err := FindChrome(s.opts.ChromePath)
	if err != nil {
		return "", sdk.Errorf(sdk.CodeLaunchFailed, "%w", err)
	}
	s.userDir = s.opts.UserDataDir
	if s.userDir == "" {
		// Named after this process, so that the next host removes it if
		// this one is killed before it can (proc.RemoveStale).
		if s.userDir, err = proc.TempDir(ProfilePrefix); err != nil {
			return "", sdk.Errorf(sdk.CodeLaunchFailed, "create user data dir: %w", err)
		}
		s.ownsDir = true
		if err := writeDevModePrefs(s.userDir); err != nil {
			s.log.Debug("developer mode preference", "error", err)
		}
	}
	headless := s.opts.Headless || (runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "")
	s.headed = !headless
	tail := &tailWriter{max: 4096}
	l := launcher.New().
		Context(ctx).
		Bin(bin).
		Leakless(true).
		UserDataDir(s.userDir).
		NoSandbox(os.Geteuid() == 0).
		Logger(tail).
		Delete("auto-open-devtools-for-tabs").
		Set("load-extension", extDir).
		Set("disable-extensions-except", extDir).
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("disable-sync").
		Set("no-first-run").
		Set("disable-background-timer-throttling").
		Set("disable-backgrounding-occluded-windows").
		Set("disable-renderer-backgrounding").
		// The window starts at the viewport's size; fitViewport adds the
		// browser's bars once a page can measure them.
		Set("window-size", fmt.Sprintf("%d,%d", s.opts.Viewport.Width, s.opts.Viewport.Height)).
		// Branded Chrome 137+ ignores --load-extension without this.
		Append("disable-features", "DisableLoadExtensionCommandLineSwitch").
		// A start tab made while Chrome boots is much faster than a window
		// created afterwards; the home page is loaded into it once the
		// extension is up.
		Delete("no-startup-window").
		StartURL("about:blank")
	if m := s.opts.Localhost; m != nil {
		l = l.Set("host-resolver-rules", m.flag())
	}
	if p := s.opts.Proxy; p != nil {
		l = l.Set("proxy-server", p.Server).Set("proxy-bypass-list", p.Bypass)
		if p.SPKI != "" {
			l = l.Set("ignore-certificate-errors-spki-list", p.SPKI)
		}
	}
	if headless {
		// Headless Chrome's screen is 800x600 unless told otherwise, smaller
		// than the window: Chrome then refuses extension popups placed at
		// the window's top right (bounds must be half on screen), which is
		// where MetaMask opens its notification window.
		l = l.HeadlessNew(true).Set("screen-info", headlessScreen)
	} else {
		l = l.Headless(false).Set("window-position", "0,0")
	}
	s.log.Debug("launching chrome", "bin", bin, "headless", headless, "userDataDir", s.userDir, "extension", extDir)
	u, pid, err := launchWithin(ctx, func() (string, int, error) {
		u, err := l.Launch()
		return u, l.PID(), err
	})
	if err != nil {
		// A launch cancelled while Chrome boots (a launch step beside it
		// failed) answers once Chrome is gone, as Close does.
		_ = s.reap(context.Background(), pid)
		s.removeUserDir()
		return "", sdk.Errorf(sdk.CodeLaunchFailed, "chrome did not start: %w", err).
			WithDetails(map[string]any{"chrome": bin, "output": tail.String()})
	}
	s.launcher = l
	s.pid = pid
	return u, nil
}

// launchWithin is launch (rod's Launcher.Launch and the pid) bounded by
// ctx (the launch's browser step has a limit): rod waits for leakless to
// report Chrome's pid on a channel that "may never receive the pid" (a
// leakless that died first), without looking at its context, and a whole
// launch then hung (seen once in a suite run, 20 minutes). On ctx's end
// the launch fails with pid 0; Chrome, if it started, is found by its
// profile directory (reap) and the goroutine left in rod is the price.
func launchWithin(ctx context.Context, launch func() (string, int, error)) (u string, pid int, err error) {
	type launched struct {
		u   string
		pid int
		err error
	}
	done := make(chan launched, 1)
	go func() {
		u, pid, err := launch()
		done <- launched{u, pid, err}
	}()
	select {
	case r := <-done:
		return r.u, r.pid, r.err
	case <-ctx.Done():
		return "", 0, fmt.Errorf("chrome's launcher did not answer: %w", ctx.Err())
	}
}

// connect opens the DevTools connection and starts the target event loop.
func (s *Chrome) connect(ctx context.Context, wsURL string) error {
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, wsURL, nil); err != nil {
		return sdk.Errorf(sdk.CodeLaunchFailed, "connect to chrome: %w", err)
	}
	s.ws = ws
	s.pipe = discovery.NewPipe(ws)
	s.wsURL = wsURL
	client := cdp.New().Logger(utils.LoggerQuiet).Start(ws)
	loopCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	b := rod.New().
		Context(discovery.WithCache(loopCtx, s.cache)).
		Client(client).
		Logger(utils.LoggerQuiet).
		Trace(false).
		NoDefaultDevice().
		SlowMotion(s.opts.SlowMo)
	if err := b.Connect(); err != nil {
		return sdk.Errorf(sdk.CodeLaunchFailed, "attach to chrome: %w", err)
	}
	s.browser = b
	s.watch(b)
	events := b.Event()
	seeded := make(chan error, 1)
	s.loopDone = make(chan struct{})
	go func() {
		defer close(s.loopDone)
		s.tabs.run(loopCtx, b, events, seeded, s.forgetTarget)
	}()
	select {
	case err := <-seeded:
		if err != nil {
			return sdk.Errorf(sdk.CodeLaunchFailed, "list chrome targets: %w", err)
		}
		if s.launcher == nil {
			s.tabs.markForeign() // an attached Chrome's tabs are not the session's
		}
	case <-ctx.Done():
		return sdk.Errorf(sdk.CodeLaunchFailed, "list chrome targets: %w", ctx.Err())
	}
	return nil
}

// openHome loads the extension home page into the start tab (a new tab
// when attached) once the extension's service worker is up, and waits for
// it to load. The worker also confirms the computed id, or gives it when
// there is none (attaching without an extension path).
func (s *Chrome) openHome(ctx context.Context) error {
	id, err := s.awaitExtension(ctx, s.extID)
	if err != nil && s.extID == "" {
		return err
	}
	if err == nil {
		s.setExtID(id)
	}
	s.log.Debug("extension target up")
	// The worker's console is listened to beside the home page's load: a
	// worker still evaluating its bundle (MetaMask's, under LavaMoat)
	// answers its DevTools session only once it is done, and the page
	// need not wait for that.
	workers := s.tabs.workersOf(s.extID)
	s.setKnownWorkers(workers)
	listened := make(chan struct{})
	go func() {
		defer close(listened)
		s.listenTo(ctx, workers)
	}()
	defer func() { <-listened }()
	if start, ok := s.startTab(); ok {
		page, err := s.attach(start)
		if err == nil {
			err = s.navigate(ctx, page, s.homeURL())
		}
		if err != nil {
			return sdk.Errorf(sdk.CodeLaunchFailed, "extension home page did not load: %w", err)
		}
		s.tabs.setHome(start)
		s.activate(ctx, start)
		return nil
	}
	if _, err := s.newTab(ctx, s.homeURL(), true); err != nil {
		return sdk.Errorf(sdk.CodeLaunchFailed, "extension home page did not load: %w", err)
	}
	return nil
}

// fitWindow shrinks a headed window that is larger than its screen (a small
// Xvfb display) to the screen, so popups placed at its top right are on
// screen.
func (s *Chrome) fitWindow(ctx context.Context) {
	home, ok := s.tabs.home()
	if !ok || home.Page == nil {
		return
	}
	var scr struct{ W, H int }
	if err := discovery.Eval(ctx, home.Page, `({w: screen.availWidth, h: screen.availHeight})`, discovery.EvalOptions{Idempotent: true}, &scr); err != nil || scr.W == 0 {
		return
	}
	win, err := proto.BrowserGetWindowForTarget{TargetID: home.ID}.Call(s.browser.Context(ctx))
	if err != nil || win.Bounds == nil || win.Bounds.Width == nil || win.Bounds.Height == nil {
		return
	}
	w, h := min(*win.Bounds.Width, scr.W), min(*win.Bounds.Height, scr.H)
	if w == *win.Bounds.Width && h == *win.Bounds.Height {
		return
	}
	s.log.Debug("fitting the window to the screen", "width", w, "height", h)
	_ = proto.BrowserSetWindowBounds{WindowID: win.WindowID, Bounds: &proto.BrowserBounds{
		Left: new(0), Top: new(0), Width: &w, Height: &h,
	}}.Call(s.browser.Context(ctx))
}

// startTab is the blank tab a launched Chrome opened at start.
func (s *Chrome) startTab() (proto.TargetTargetID, bool) {
	if s.launcher == nil {
		return "", false
	}
	for _, ti := range s.tabs.list() {
		if ti.URL == "about:blank" || ti.URL == "" {
			return ti.ID, true
		}
	}
	return "", false
}

func (s *Chrome) setExtID(id string) {
	if id != s.extID {
		s.log.Debug("extension id", "id", id, "computed", s.extID)
	}
	s.extID = id
	s.tabs.setExtID(id)
}

// awaitExtension waits for an extension target (service worker or page):
// want when it shows up, else the only other extension seen.
func (s *Chrome) awaitExtension(ctx context.Context, want string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, extensionWait)
	defer cancel()
	for {
		changed := s.tabs.wait()
		ids := s.tabs.extensionIDs()
		for _, id := range ids {
			if id == want {
				return id, nil
			}
		}
		if len(ids) > 0 && (want == "" || len(ids) == 1) {
			return ids[0], nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", sdk.Errorf(sdk.CodeLaunchFailed, "no extension service worker appeared in %s: is the extension loaded?", extensionWait)
		}
	}
}

// newTab opens url in a new tab, waits for it to load and makes it active
// (and the home tab when home is set). A navigation error closes the tab.
// The session's oldest tabs are closed first when it holds
// Options.MaxTabs already (makeRoom).
func (s *Chrome) newTab(ctx context.Context, url string, home bool) (*rod.Page, error) {
	s.makeRoom(ctx)
	tgt, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(s.browser.Context(ctx))
	if err != nil {
		return nil, fmt.Errorf("create tab: %w", err)
	}
	s.log.Trace("tab created", "url", url)
	s.tabs.ensure(tgt.TargetID, "about:blank")
	page, err := s.attach(tgt.TargetID)
	s.log.Trace("tab attached", "url", url)
	if err == nil {
		err = s.navigate(ctx, page, url)
	}
	if err != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = s.closeTarget(cctx, tgt.TargetID)
		cancel()
		return nil, err
	}
	if home {
		s.tabs.setHome(tgt.TargetID)
	}
	s.activate(ctx, tgt.TargetID)
	return page, nil
}

// attach returns the rod page of a target, attaching once. Pages live as
// long as the session, so they are bound to the session's context; callers
// bound each call with page.Context(ctx).
// Every later document of the page counts the requests it sends to its
// extension's background (discovery.TrackBackground), so a wallet click
// that sends none is answered without a quiet wait, and starts with
// mmcp's world and its scripts (discovery.Preinstall).
func (s *Chrome) attach(id proto.TargetTargetID) (*rod.Page, error) {
	if ti, ok := s.tabs.get(id); ok && ti.Page != nil {
		return ti.Page, nil
	}
	page, err := s.browser.PageFromTarget(id)
	if err != nil {
		return nil, fmt.Errorf("attach to tab: %w", err)
	}
	s.listen(context.Background(), page)
	if err := discovery.TrackBackground(page.Timeout(2 * time.Second)); err != nil {
		s.log.Debug("background-request tracker not added", "error", err)
	}
	if err := discovery.Preinstall(page.Timeout(2 * time.Second)); err != nil {
		s.log.Debug("mmcp's scripts not preinstalled", "error", err)
	}
	s.captureRequests(id, page)
	s.tabs.setPage(id, page)
	return page, nil
}

// activate brings id to the front (a headed background tab cannot be
// captured or focused), makes it the active page and runs the change
// callbacks.
func (s *Chrome) activate(ctx context.Context, id proto.TargetTargetID) {
	_ = proto.TargetActivateTarget{TargetID: id}.Call(s.browser.Context(ctx))
	for _, cb := range s.tabs.setActive(id) {
		cb()
	}
}

// Close ends the session: it stops the event loop and drops the DevTools
// connection, then (when Chrome was launched, not attached) kills Chrome's
// whole process group, waits for it to be gone and removes the user data
// directory it created. It is safe to call more than once.
func (s *Chrome) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { s.closeErr = s.close(ctx) })
	return s.closeErr
}

func (s *Chrome) close(ctx context.Context) error {
	close(s.health.closing)
	if s.launcher == nil && s.browser != nil {
		s.closeOwned(ctx)
	}
	if s.launcher != nil && !s.ownsDir && s.browser != nil {
		// A kept profile deserves a clean shutdown.
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_ = proto.BrowserClose{}.Call(s.browser.Context(cctx))
		cancel()
	}
	if s.cancel != nil {
		s.cancel()
	}
	if s.ws != nil {
		_ = s.ws.Close()
	}
	if s.loopDone != nil {
		<-s.loopDone
	}
	if s.launcher == nil {
		return nil
	}
	return errors.Join(s.reap(ctx, s.pid), s.removeUserDir())
}

// reap kills Chrome's process group (pid leads it; 0 when its pid is not
// known) and waits, 10 s at most, until it is gone, with any straggler of
// the profile directory this session made (found by its command line,
// pid or not).
func (s *Chrome) reap(ctx context.Context, pid int) error {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var err error
	if pid > 0 {
		killGroup(pid)
		if werr := waitGroupGone(wctx, pid); werr != nil {
			err = fmt.Errorf("chrome (pid %d) still running: %w", pid, werr)
		}
	}
	if s.ownsDir {
		killStragglers(wctx, s.userDir)
	}
	return err
}

// removeUserDir deletes the profile directory when this session made it.
func (s *Chrome) removeUserDir() error {
	if !s.ownsDir || s.userDir == "" {
		return nil
	}
	removeSingletonDir(s.userDir)
	var err error
	for i := 0; i < 5; i++ {
		if err = os.RemoveAll(s.userDir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("remove user data dir: %w", err)
}
