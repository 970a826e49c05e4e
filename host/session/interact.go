package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// The interaction tools (mm_click, mm_type, mm_wait_for, mm_get_text) on
// the call's session's active page and its ref map. timeout bounds the
// interaction (the tool's timeoutMs; the caller's ctx bounds the whole
// call). Each answers a result that carries its record's target (a
// failed interaction's too).

// Click clicks t with the wallet's screen probe. On a confirmation popup
// it also waits (within ctx) for the wallet to close it once the approval
// is settled, and it lists the tabs the click opened.
func (m *Manager) Click(ctx context.Context, t discovery.Target, timeout time.Duration) (Targeted[discovery.ClickResult], error) {
	return interact(ctx, m, t, timeout, func(actx context.Context, s *Session) (discovery.ClickResult, error) {
		page := s.wallet.ActivePage()
		popup := s.wallet.Tabs().Active.Role == "notification"
		var before string
		if popup {
			before = s.wallet.PageHref(actx, page)
		}
		tabsBefore := s.wallet.OpenTabs()
		res, err := discovery.Click(actx, page, s.Refs(), t, s.wallet.ClickOptions(actx, page))
		if err == nil && popup && !res.PageClosedAfterClick {
			// The wallet's background closes a confirmation popup once the
			// approval is settled (MetaMask: > 500 ms).
			res.PageClosedAfterClick = s.wallet.WaitPopupClosed(ctx, page, before)
		}
		if res.Changes != nil {
			res.Changes.TabsOpened = s.wallet.OpenedSince(tabsBefore)
		}
		return res, err
	})
}

// Typed is mm_type's result: the record keeps the typed text only when
// the field is no secret (TextSafe).
type Typed struct {
	Targeted[discovery.TypeResult]
	safe bool
}

// TextSafe implements tools.TextSafe.
func (r Typed) TextSafe() bool { return r.safe }

// Type replaces the value of the input t with text, and decides from the
// element, the target and the text itself whether the text is a secret.
func (m *Manager) Type(ctx context.Context, t discovery.Target, text string, timeout time.Duration) (Typed, error) {
	res, err := interact(ctx, m, t, timeout, func(actx context.Context, s *Session) (discovery.TypeResult, error) {
		return discovery.Type(actx, s.wallet.ActivePage(), s.Refs(), t, text)
	})
	return Typed{Targeted: res, safe: err == nil && !sensitiveField(res.Value.Field, t, text)}, err
}

// WaitFor waits until t is visible.
func (m *Manager) WaitFor(ctx context.Context, t discovery.Target, timeout time.Duration) (Targeted[discovery.WaitResult], error) {
	return interact(ctx, m, t, timeout, func(actx context.Context, s *Session) (discovery.WaitResult, error) {
		return discovery.WaitFor(actx, s.wallet.ActivePage(), s.Refs(), t)
	})
}

// Text is mm_get_text's result: the record keeps the state, not the text.
type Text struct {
	Targeted[discovery.TextResult]
}

// RecordObservation implements tools.Observed: the state only.
func (Text) RecordObservation() (*observation.Observation, bool) { return emptyObservation(), true }

// GetText is the visible text of t, at most maxChars.
func (m *Manager) GetText(ctx context.Context, t discovery.Target, maxChars int, timeout time.Duration) (Text, error) {
	res, err := interact(ctx, m, t, timeout, func(actx context.Context, s *Session) (discovery.TextResult, error) {
		readAhead(actx, s)
		return discovery.Text(actx, s.wallet.ActivePage(), s.Refs(), t, maxChars)
	})
	return Text{res}, err
}

// interact runs fn on the call's session with an active page, with actx
// bounded by timeout (at least one attempt: 0 means "do not wait") and
// the session's slow motion; the result carries t for the record, with
// the role and name of the ref it names (a target that outlives the
// snapshot, mmcp flow export).
func interact[T any](ctx context.Context, m *Manager, t discovery.Target, timeout time.Duration, fn func(actx context.Context, s *Session) (T, error)) (Targeted[T], error) {
	out := Targeted[T]{target: map[string]string{}}
	switch {
	case t.A11yRef != "":
		out.target["a11yRef"] = t.A11yRef
	case t.TestID != "":
		out.target["testId"] = t.TestID
	default:
		out.target["selector"] = t.Selector
	}
	s, err := m.Page(ctx)
	if err != nil {
		return out, err
	}
	if role, name, ok := s.Refs().Describe(t.A11yRef); ok && t.A11yRef != "" {
		out.target["role"], out.target["name"] = role, name
	}
	actx, cancel := context.WithTimeout(ctx, max(timeout, 100*time.Millisecond))
	defer cancel()
	out.Value, err = fn(discovery.WithSlowMo(actx, s.wallet.SlowMo()), s)
	return out, err
}

// Targeted is an interaction's answer, Value, with its record's target
// (tools.Targeted).
type Targeted[T any] struct {
	Value  T
	target map[string]string
}

// MarshalJSON answers Value.
func (r Targeted[T]) MarshalJSON() ([]byte, error) { return json.Marshal(r.Value) }

// RecordTarget implements tools.Targeted.
func (r Targeted[T]) RecordTarget() map[string]string { return r.target }

// sensitiveField decides from the element, the target and the text itself
// whether typed text is a secret.
func sensitiveField(f discovery.FieldInfo, t discovery.Target, text string) bool {
	tid := f.TestID
	if tid == "" {
		tid = t.TestID
	}
	return knowledge.Sensitive(knowledge.FieldHints{
		InputType: f.Type, Name: f.Name, ID: f.ID, Label: f.Label, Placeholder: f.Placeholder,
		Autocomplete: f.Autocomplete, AriaLabel: f.AriaLabel, TestID: tid,
		Selector: t.Selector,
	}, text)
}

// readAhead starts the state read of the call's record as the call
// starts, beside what the call does (Session.ReadAhead), when the call is
// recorded.
func readAhead(ctx context.Context, s *Session) {
	if tools.Recorded(ctx) {
		s.ReadAhead(ctx)
	}
}

// emptyObservation is an observation with no testids and no nodes, its
// state to be read.
func emptyObservation() *observation.Observation {
	return &observation.Observation{TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
}
