package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// t0 is "now" for tests that fix the clock.
var t0 = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "llm-knowledge"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return t0 }
	return s
}

// step builds a record on screen with the given visible testids; target
// is a testid ("" for none).
func step(sid string, at time.Time, tool, screen, target string, ok bool, testIDs ...string) StepRecord {
	r := StepRecord{
		SessionID: sid,
		Timestamp: formatTime(at),
		Tool:      ToolCall{Name: tool},
		Outcome:   Outcome{OK: ok},
		Observation: observation.Observation{
			State: observation.State{IsLoaded: true, CurrentURL: "chrome-extension://abc/home.html#/", ExtensionID: "abc", IsUnlocked: true, CurrentScreen: screen},
		},
	}
	if target != "" {
		r.Tool.Target = &Target{TestID: target}
		r.Tool.Input = map[string]any{"testId": target}
	}
	if !ok {
		r.Outcome.Error = &OutcomeError{Code: sdk.CodeTargetNotFound, Message: "element not found: " + target}
	}
	for _, id := range testIDs {
		r.Observation.TestIDs = append(r.Observation.TestIDs, observation.TestIDItem{TestID: id, Tag: "button", Visible: true})
	}
	r.Labels = Labels(testClass[tool], r.Tool.Target, ok)
	return r
}

// testClass stands in for the Label of the host's tool definitions.
var testClass = map[string]string{
	"mm_describe_screen": LabelDiscovery, "mm_list_testids": LabelDiscovery, "mm_get_state": LabelDiscovery,
	"mm_navigate": LabelNavigation, "mm_wait_for_notification": LabelNavigation,
	"mm_click": LabelInteraction, "mm_type": LabelInteraction, "mm_wait_for": LabelInteraction,
}

func mustRecord(t testing.TB, s *Store, r StepRecord) string {
	t.Helper()
	p, err := s.Record(r)
	if err != nil {
		t.Fatalf("record %s: %v", r.Tool.Name, err)
	}
	// Every record written must validate against the schema.
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateRecord(b); err != nil {
		t.Fatalf("written record %s: %v", p, err)
	}
	return p
}

func mustSession(t testing.TB, s *Store, id string, created time.Time, goal string, flowTags, tags []string, branch string) {
	t.Helper()
	m := SessionMeta{SessionID: id, CreatedAt: formatTime(created), Goal: goal, FlowTags: flowTags, Tags: tags}
	if branch != "" {
		m.Git = &GitInfo{Branch: branch, Commit: "abc123"}
	}
	if err := s.WriteSession(m); err != nil {
		t.Fatal(err)
	}
}

// wantCode fails unless err is an *sdk.Error with code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func a11y(ref, role, name string) observation.A11yNode {
	return observation.A11yNode{Ref: ref, Role: role, Name: name, Path: []string{}}
}
