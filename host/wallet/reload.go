package wallet

import (
	"context"
	"fmt"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// ReloadOptions configure Reload.
type ReloadOptions struct {
	// Password unlocks the wallet when it comes back locked.
	Password string
	// Settle bounds the whole reload: the extension going and coming back,
	// its first screen, the unlock.
	Settle time.Duration
	// Mode is what is loaded again: the whole extension (the default),
	// its pages only or its background restarted.
	Mode ReloadMode
}

// ReloadMode is what a reload loads again.
type ReloadMode int

const (
	// ReloadWhole reloads the extension from disk
	// (browser.Chrome.ReloadExtension).
	ReloadWhole ReloadMode = iota
	// ReloadPages loads only the extension's pages again
	// (browser.Chrome.ReloadPages): the rebuild changed no file its
	// background loads.
	ReloadPages
	// RestartBackground restarts its service worker on the same files
	// (browser.Chrome.RestartBackground): it reads its state again (a
	// checkpoint's) and comes back unlocked when the wallet keeps its key
	// in the session storage; when the worker does not restart, the
	// extension is reloaded instead.
	RestartBackground
)

// ReloadResult is what an in-place reload did.
type ReloadResult struct {
	ReloadMs int64 `json:"reloadMs"`
	// Screen is the wallet screen shown now, URL its page.
	Screen string `json:"screen"`
	URL    string `json:"url"`
	// Reopened is the wallet page reopened: the one the agent was on, else
	// home.
	Reopened string `json:"reopened"`
	// ReloadedBy says what restarted the extension: mmcp (from
	// chrome://extensions) or the extension itself (the build's live
	// reload had restarted it already).
	ReloadedBy string `json:"reloadedBy"`
	// BackgroundRestarted says a new service worker runs: the background
	// runs the files as they are now, not only the pages.
	BackgroundRestarted bool `json:"backgroundRestarted"`
	// PagesOnly says only the extension's pages were loaded again: the
	// rebuild changed no file the background loads, which ran on (still
	// unlocked).
	PagesOnly bool `json:"pagesOnly,omitempty"`
	// Unlocked says the wallet came back locked and was unlocked again.
	Unlocked   bool `json:"unlocked"`
	IsUnlocked bool `json:"isUnlocked"`
	// ConsoleErrors are the extension's console errors since the reload.
	ConsoleErrors []string `json:"consoleErrors"`
	// SplitMs is the time of each step: trigger, worker, page
	// (browser.Reloaded.Split), screen (the wallet's first screen), unlock.
	SplitMs map[string]int64 `json:"splitMs,omitempty"`
}

// Reload reloads the unpacked extension in the running Chrome (its files
// were rebuilt in place; browser.Chrome.ReloadExtension): no new Chrome,
// the chain and the dapp tabs stay. It reopens the wallet page the agent
// was on (home when it was on no wallet page) and makes it active, waits
// for its screen and unlocks again when it came back locked. A reloaded
// build that shows its error page, never gets a service worker or whose
// screen never settles within o.Settle is MM_RELOAD_FAILED, with the
// extension's console errors and a screenshot.
func (s *Wallet) Reload(ctx context.Context, o ReloadOptions) (ReloadResult, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.Settle)
	defer cancel()
	reload := s.ReloadExtension
	switch o.Mode {
	case ReloadPages:
		reload = s.ReloadPages
	case RestartBackground:
		reload = s.RestartBackground
	}
	r, err := reload(ctx)
	if err != nil && o.Mode == RestartBackground && ctx.Err() == nil {
		s.log.Warn("the background did not restart on its own; reloading the extension", "error", err)
		r, err = s.ReloadExtension(ctx)
	}
	res := ReloadResult{Reopened: r.Back, ReloadedBy: r.By, BackgroundRestarted: r.Worker, PagesOnly: o.Mode == ReloadPages, SplitMs: r.Split}
	if res.SplitMs == nil {
		res.SplitMs = map[string]int64{}
	}
	lap := func(step string) {
		res.SplitMs[step] = time.Since(start).Milliseconds() - sumMs(res.SplitMs)
	}
	if err != nil {
		return res, s.reloadFailed(ctx, start, err.Error())
	}
	if !r.Worker && o.Mode != ReloadPages {
		return res, s.reloadFailed(ctx, start, "the extension's background did not restart"+r.NoWorker())
	}
	st, err := s.WaitForScreen(ctx)
	switch {
	case err != nil:
		return res, s.reloadFailed(ctx, start, fmt.Sprintf("the reloaded wallet did not reach a recognized screen within %s%s", o.Settle, r.NoWorker()))
	case st.CurrentScreen == "error":
		return res, s.reloadFailed(ctx, start, "the reloaded wallet shows its error page")
	}
	lap("screen")
	if !st.IsUnlocked && o.Password != "" && st.CurrentScreen == "unlock" {
		if err := s.Unlock(ctx, o.Password); err != nil {
			return res, s.reloadFailed(ctx, start, "the reloaded wallet came back locked and did not unlock: "+sdk.AsError(err).Message)
		}
		res.Unlocked = true
		// The unlock went home: back to the screen the agent was on.
		s.ReturnTo(ctx, r.Page, r.Back)
		if st, err = s.WaitForScreen(ctx); err != nil {
			return res, s.reloadFailed(ctx, start, "the reloaded wallet's screen did not settle after the unlock")
		}
		lap("unlock")
	}
	res.Screen, res.URL, res.IsUnlocked = st.CurrentScreen, st.CurrentURL, st.IsUnlocked
	res.ConsoleErrors = s.ConsoleSince(start)
	res.ReloadMs = time.Since(start).Milliseconds()
	return res, nil
}

func sumMs(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// reloadFailed is MM_RELOAD_FAILED with the browser's diagnosis.
func (s *Wallet) reloadFailed(ctx context.Context, since time.Time, what string) error {
	d := s.Diagnose(ctx, "reload-failed-"+time.Now().UTC().Format("20060102-150405"))
	d.ConsoleErrors = s.ConsoleSince(since)
	msg := fmt.Sprintf("%s (last screen %q at %s; %d console errors of the extension since the reload in details.consoleErrors", what, d.LastScreen, d.LastURL, len(d.ConsoleErrors))
	if d.Screenshot != "" {
		msg += "; screenshot " + d.Screenshot
	}
	msg += "): fix the source; the next good rebuild reloads the session again, no relaunch needed"
	return sdk.Errorf(sdk.CodeReloadFailed, "%s", msg).WithDetails(map[string]any{
		"lastScreen": d.LastScreen, "lastUrl": d.LastURL, "consoleErrors": d.ConsoleErrors, "screenshot": d.Screenshot,
	})
}
