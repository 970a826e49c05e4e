package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// The discovery tools (mm_list_testids, mm_accessibility_snapshot,
// mm_describe_screen) on the call's session's active page. What they
// gathered is their record's observation too (tools.Observed).

// TestIDs is mm_list_testids' result.
type TestIDs struct {
	Items []observation.TestIDItem `json:"items"`
}

// RecordObservation implements tools.Observed: the testids, the state to
// be read.
func (r TestIDs) RecordObservation() (*observation.Observation, bool) {
	obs := emptyObservation()
	if r.Items != nil {
		obs.TestIDs = r.Items
	}
	return obs, true
}

// ListTestIDs lists the visible data-testids of the active page.
func (m *Manager) ListTestIDs(ctx context.Context, limit int) (TestIDs, error) {
	s, err := m.Page(ctx)
	if err != nil {
		return TestIDs{}, err
	}
	readAhead(ctx, s)
	items, err := discovery.TestIDs(ctx, s.wallet.ActivePage(), limit)
	if err != nil {
		return TestIDs{}, err
	}
	return TestIDs{Items: items}, nil
}

// Snapshot is mm_accessibility_snapshot's result: the nodes, or with
// text their outline.
type Snapshot struct {
	Nodes []observation.A11yNode
	text  bool
	ahead StateAhead
}

// MarshalJSON answers {nodes} or {outline}.
func (r Snapshot) MarshalJSON() ([]byte, error) {
	if r.text {
		return json.Marshal(map[string]any{"outline": discovery.Outline(r.Nodes)})
	}
	return json.Marshal(map[string]any{"nodes": r.Nodes})
}

// RecordObservation implements tools.Observed: the nodes, the state to be
// read (or taken from the read beside the walk, RecordStateAhead).
func (r Snapshot) RecordObservation() (*observation.Observation, bool) {
	obs := emptyObservation()
	if r.Nodes != nil {
		obs.A11y.Nodes = r.Nodes
	}
	return obs, true
}

// RecordStateAhead implements tools.StateAhead.
func (r Snapshot) RecordStateAhead(ctx context.Context) (observation.State, bool) {
	if r.ahead == nil {
		return observation.State{}, false
	}
	return r.ahead(ctx)
}

// AccessibilitySnapshot is the trimmed accessibility tree of the active
// page (below rootSelector when given); its refs replace the session's.
// A recorded whole-page snapshot also reads its record's state beside the
// walk (see stateAhead); a rootSelector snapshot starts that read too
// (ReadAhead), for its record to take. The read starts as the snapshot
// does, before its wait for a dapp's answers (dappAnswered): that wait
// can outlast readFresh, and a read started after it would ask the
// wallet's background again, which the next call waits for; the read is
// still kept only when the page held for it at the walk.
func (m *Manager) AccessibilitySnapshot(ctx context.Context, rootSelector string, text bool) (Snapshot, error) {
	s, err := m.Page(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	page := s.wallet.ActivePage()
	var ahead func(discovery.At) StateAhead
	switch {
	case !tools.Recorded(ctx) || page == nil:
	case rootSelector == "":
		ahead = s.stateAhead(ctx, page)
	default:
		// its walk reports no URL: the record checks the read itself
		s.ReadAhead(ctx)
	}
	m.dappAnswered(ctx, s, page)
	nodes, refs, at, err := discovery.SnapshotAt(ctx, page, rootSelector)
	if err != nil {
		return Snapshot{}, err
	}
	s.setRefs(refs)
	out := Snapshot{Nodes: nodes, text: text}
	if ahead != nil {
		out.ahead = ahead(at)
	}
	return out, nil
}

// DescribeOptions are mm_describe_screen's.
type DescribeOptions struct {
	IncludeScreenshot       bool   `json:"includeScreenshot"`
	ScreenshotName          string `json:"screenshotName"`
	IncludeScreenshotBase64 bool   `json:"includeScreenshotBase64"`
}

// Described is mm_describe_screen's result: the observation the agent is
// given is its record's, with the screenshot when one was asked for.
type Described struct {
	obs   *observation.Observation
	shot  *Shot
	prior any
}

// MarshalJSON answers state, testIds, a11y, screenshot (null unless asked
// for; its base64 null unless asked for) and priorKnowledge when there is
// any.
func (r Described) MarshalJSON() ([]byte, error) {
	out := map[string]any{
		"state":      r.obs.State,
		"testIds":    map[string]any{"items": r.obs.TestIDs},
		"a11y":       r.obs.A11y,
		"screenshot": nil,
	}
	if r.shot != nil {
		var b64 any
		if r.shot.Base64 != "" {
			b64 = r.shot.Base64
		}
		out["screenshot"] = map[string]any{"path": r.shot.Path, "width": r.shot.Width, "height": r.shot.Height, "base64": b64}
	}
	if r.prior != nil {
		out["priorKnowledge"] = r.prior
	}
	return json.Marshal(out)
}

// RecordObservation implements tools.Observed: the whole observation.
func (r Described) RecordObservation() (*observation.Observation, bool) { return r.obs, false }

// RecordScreenshot implements tools.Screenshotted.
func (r Described) RecordScreenshot() *tools.ScreenshotRef {
	if r.shot == nil {
		return nil
	}
	return r.shot.RecordScreenshot()
}

// ResultImages implements tools.Imaged.
func (r Described) ResultImages() []tools.Image {
	if r.shot == nil {
		return nil
	}
	return r.shot.ResultImages()
}

// DescribeScreen is mm_describe_screen: the state (the balance from the
// chain), the visible testids and the trimmed tree, whose refs replace the
// agent's, a screenshot when asked for, and hints from earlier sessions.
func (m *Manager) DescribeScreen(ctx context.Context, o DescribeOptions) (Described, error) {
	s, err := m.Page(ctx)
	if err != nil {
		return Described{}, err
	}
	m.dappAnswered(ctx, s, s.wallet.ActivePage())
	obs := m.describe(ctx, s)
	m.chainBalance(ctx, s, &obs.State)
	out := Described{obs: obs}
	if o.IncludeScreenshot || o.IncludeScreenshotBase64 {
		name := o.ScreenshotName
		if name == "" {
			name = "describe-" + time.Now().UTC().Format("20060102T150405.000Z")
		}
		shot, err := s.wallet.Screenshot(ctx, browser.ScreenshotOptions{Name: name, IncludeBase64: o.IncludeScreenshotBase64})
		if err != nil {
			return Described{}, err
		}
		out.shot = &Shot{shot}
	}
	out.prior = m.priorKnowledge(ctx, s.ID, obs)
	return out, nil
}

// priorKnowledge is mm_describe_screen's hint block, or nil.
func (m *Manager) priorKnowledge(ctx context.Context, current string, obs *observation.Observation) any {
	if m.knowledge == nil {
		return nil
	}
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	pk, err := m.knowledge.PriorKnowledge(qctx, current, knowledge.PriorQuery{
		Screen: obs.State.CurrentScreen, URL: obs.State.CurrentURL, TestIDs: obs.TestIDs, A11yNodes: obs.A11y.Nodes,
		Exclude: m.Hidden(ctx),
	})
	if err != nil || pk == nil {
		if err != nil {
			m.log.Debug("prior knowledge", "error", err)
		}
		return nil
	}
	return pk
}
