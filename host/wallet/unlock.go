package wallet

import (
	"context"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// unlockWait bounds Unlock when ctx has no deadline.
const unlockWait = 20 * time.Second

// unlockWaitJS answers, as soon as it holds (read on every DOM change of
// the page, not polled from the host) or after p.waitMs: whether the
// wallet shows the home landmark, the unlock field (focused and emptied
// when p.focus), and the text of the unlock screen's visible error (the
// wallet refusing the password; Profile.UnlockError). p.until names what
// ends the wait: "field" (the home landmark or the unlock field) or
// "result" (the home landmark or an error, unless p.stale: one was shown
// before the submit).
const unlockWaitJS = `((p) => new Promise((resolve) => {
  const q = (id) => document.querySelector('[data-testid="' + id + '"]');
  const read = () => {
    const home = !!q(p.home);
    const field = q(p.password);
    let alert = '';
    for (const a of p.error ? document.querySelectorAll(p.error) : []) {
      if (a.getClientRects().length && a.textContent.trim()) { alert = a.textContent.trim(); break; }
    }
    return {home, field, alert};
  };
  const start = performance.now();
  let obs = null, timer = null;
  const check = () => {
    const r = read();
    const done = r.home || (p.until === 'field' ? !!r.field : r.alert !== '' && !p.stale);
    if (!done && performance.now() - start < p.waitMs) return false;
    if (obs) obs.disconnect();
    if (timer) clearTimeout(timer);
    if (r.field && p.focus) { r.field.focus(); r.field.select(); }
    resolve({home: r.home, field: !!r.field, focused: !!r.field && document.activeElement === r.field, alert: r.alert});
    return true;
  };
  if (check()) return;
  obs = new MutationObserver(() => { check(); });
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  timer = setTimeout(() => { check(); }, p.waitMs);
}))`

// unlockEvalWait bounds one in-page unlock wait; the host then reads the
// page again (its document may have been replaced, or ctx may have ended).
const unlockEvalWait = time.Second

type unlockProbe struct {
	Home    bool   `json:"home"`
	Field   bool   `json:"field"`
	Focused bool   `json:"focused"`
	Alert   string `json:"alert"`
}

// Unlock unlocks the wallet with password on the active extension page
// (the home tab when the active page is not an extension page): it types
// the password through CDP input (the page's own globals may be
// scuttled), clicks the submit testid and waits for the home landmark. An
// already unlocked wallet returns at once. The password is never logged.
// Errors: MM_INVALID_INPUT (the unlock screen shows its error after the
// submit: the wallet refused the password), MM_WAIT_TIMEOUT (no unlock
// field, or the home landmark never appeared: a wrong password on a
// wallet that shows no error), MM_TYPE_FAILED, MM_CLICK_FAILED.
func (s *Wallet) Unlock(ctx context.Context, password string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, unlockWait)
		defer cancel()
	}
	page, err := s.ExtensionTab(ctx)
	if err != nil {
		return sdk.Errorf(sdk.CodeNavigationFailed, "%w", err)
	}
	args := map[string]any{"home": s.profile.HomeLandmark, "password": s.profile.UnlockPassword, "error": s.profile.UnlockError}
	probe := func(focus bool) (unlockProbe, error) {
		args["focus"], args["until"] = focus, "result"
		if focus {
			args["until"] = "field"
		}
		wait := unlockEvalWait
		if dl, ok := ctx.Deadline(); ok {
			wait = max(0, min(wait, time.Until(dl)))
		}
		args["waitMs"] = wait.Milliseconds()
		var p unlockProbe
		err := discovery.Eval(ctx, page, unlockWaitJS+"("+discovery.JSArg(args)+")", discovery.EvalOptions{Idempotent: true}, &p)
		return p, err
	}

	// Wait for either screen: the wallet may still be loading. An error
	// already shown (an earlier refused password) says nothing of this one.
	stale := ""
	for {
		p, err := probe(true)
		if err == nil && p.Home {
			return nil
		}
		if err == nil && p.Field && p.Focused {
			stale = p.Alert
			args["stale"] = stale != ""
			break
		}
		if err := browser.Sleep(ctx, 10*time.Millisecond); err != nil {
			return sdk.Errorf(sdk.CodeWaitTimeout, "the unlock screen did not appear (no %q field)", s.profile.UnlockPassword)
		}
	}
	if s.log != nil {
		s.log.Debug("unlock: the unlock field is ready")
	}
	// Input.insertText replaces the selection and fires real input events.
	if err := (proto.InputInsertText{Text: password}).Call(page.Context(ctx)); err != nil {
		return sdk.Errorf(sdk.CodeTypeFailed, "type the password: %w", err)
	}
	if err := browser.ClickTestID(ctx, page, s.profile.UnlockSubmit); err != nil {
		return sdk.Errorf(sdk.CodeClickFailed, "click %q: %w", s.profile.UnlockSubmit, err)
	}
	if s.log != nil {
		s.log.Debug("unlock: password submitted")
	}
	for {
		p, err := probe(false)
		if err == nil && p.Home {
			return nil
		}
		if err == nil && p.Alert != "" && stale == "" {
			return sdk.Errorf(sdk.CodeInvalidInput, "the wallet refused the password: %q", p.Alert)
		}
		if err := browser.Sleep(ctx, 10*time.Millisecond); err != nil {
			return sdk.Errorf(sdk.CodeWaitTimeout, "the wallet did not unlock (no %q after submit): is the password right?", s.profile.HomeLandmark)
		}
	}
}
