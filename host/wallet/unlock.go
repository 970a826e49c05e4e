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

// unlockProbe reports whether the wallet shows the home landmark, the
// unlock field, the unlock field focused and emptied when asked, and the
// text of the unlock screen's visible error (the wallet refusing the
// password; Profile.UnlockError).
const unlockProbeJS = `((p) => {
  const q = (id) => document.querySelector('[data-testid="' + id + '"]');
  const home = !!q(p.home);
  const field = q(p.password);
  if (field && p.focus) { field.focus(); field.select(); }
  let alert = '';
  for (const a of p.error ? document.querySelectorAll(p.error) : []) {
    if (a.getClientRects().length && a.textContent.trim()) { alert = a.textContent.trim(); break; }
  }
  return {home, field: !!field, focused: !!field && document.activeElement === field, alert};
})`

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
		args["focus"] = focus
		var p unlockProbe
		err := discovery.Eval(ctx, page, unlockProbeJS+"("+discovery.JSArg(args)+")", discovery.EvalOptions{Idempotent: true}, &p)
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
			break
		}
		if err := browser.Sleep(ctx, 50*time.Millisecond); err != nil {
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
		if err := browser.Sleep(ctx, 50*time.Millisecond); err != nil {
			return sdk.Errorf(sdk.CodeWaitTimeout, "the wallet did not unlock (no %q after submit): is the password right?", s.profile.HomeLandmark)
		}
	}
}
