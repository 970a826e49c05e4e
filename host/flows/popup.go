package flows

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/knowledge"
)

// popupAnswers follows a recorded session's wallet popup for Export:
// whether the popup is the page the next step acts on, and the confirm
// step its clicks became.
type popupAnswers struct {
	// open: the last step left the wallet's popup as the active page.
	open bool
	// pending is the index in the flow's steps, plus one, of the confirm
	// step of a popup click after which the popup stayed (a connect's
	// first step): the next click on the popup's buttons is the same
	// confirmation's. 0 for none.
	pending int
}

// notificationPage reports whether a recorded page address is the
// wallet's popup.
func notificationPage(url string) bool {
	return strings.HasPrefix(url, "chrome-extension://") && strings.Contains(url, "/notification.html")
}

// saw notes where rec left the session: in the popup (a wait for it, a
// switch to it, an observation of it) or elsewhere (an observation of
// another page).
func (p *popupAnswers) saw(rec *knowledge.StepRecord) {
	if !rec.Outcome.OK {
		return
	}
	switch baseName(rec.Tool.Name) {
	case "wait_for_notification":
		p.open = true
		return
	case "switch_to_tab", "navigate":
		role, _ := rec.Tool.Input["role"].(string)
		screen, _ := rec.Tool.Input["screen"].(string)
		p.open = role == "notification" || screen == "notification"
		if !p.open {
			p.pending = 0
		}
		return
	case "confirm":
		p.open, p.pending = false, 0
		return
	}
	if u := rec.Observation.State.CurrentURL; u != "" {
		p.open = notificationPage(u)
		if !p.open {
			p.pending = 0
		}
	}
}

// answer adds to f the confirm step of an answered confirmation, and
// says whether rec was one: a recorded mm_confirm (its action and
// expect), or a click on a confirmation button while the wallet's popup
// was the active page. A click that continues the popup's pending
// confirm step (a connect's second) sets its action and adds nothing. A
// wait for the popup or a switch to it right before is dropped: the
// confirm step waits for the popup itself. Call it before saw(rec).
func (p *popupAnswers) answer(f *Flow, rec *knowledge.StepRecord, base string) bool {
	var action string
	switch {
	case base == "confirm":
		c := &ConfirmStep{}
		c.Action, _ = rec.Tool.Input["action"].(string)
		if e, ok := rec.Tool.Input["expect"].(map[string]any); ok && len(e) > 0 {
			c.Expect, _ = f.withheld(e, "FLOW", []string{"expect"}, fmt.Sprintf("_%d", len(f.Steps)+1)).(map[string]any)
		}
		if ms, ok := rec.Tool.Input["timeoutMs"].(float64); ok {
			c.TimeoutMs = int(ms)
		}
		p.dropWait(f)
		f.Steps = append(f.Steps, Step{Confirm: c})
		return true
	case base != "click" || !p.open || rec.Tool.Target == nil:
		return false
	case slices.Contains(confirm.ApproveTestIDs, rec.Tool.Target.TestID):
		action = "approve"
	case slices.Contains(confirm.RejectTestIDs, rec.Tool.Target.TestID):
		action = "reject"
	default:
		return false
	}
	stays := notificationPage(rec.Observation.State.CurrentURL)
	if p.pending > 0 {
		f.Steps[p.pending-1].Confirm.Action = action
	} else {
		p.dropWait(f)
		f.Steps = append(f.Steps, Step{Confirm: &ConfirmStep{Action: action}})
		p.pending = len(f.Steps)
	}
	if !stays {
		p.pending = 0
	}
	return true
}

// dropWait removes f's last step when it waits for the popup or switches
// to it.
func (p *popupAnswers) dropWait(f *Flow) {
	n := len(f.Steps)
	if n == 0 {
		return
	}
	last := f.Steps[n-1]
	role, _ := last.Args["role"].(string)
	switch baseName(last.Tool) {
	case "wait_for_notification":
	case "switch_to_tab":
		if role != "notification" {
			return
		}
	default:
		return
	}
	f.Steps = f.Steps[:n-1]
}
