package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// A launch or reload record carries the build id, and a click by ref the
// role and name it was given with: the spec's schema closes the build
// and target blocks, so they travel as labels and come back on reading.
func TestBuildIDAndRefTargetStayValid(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	launch := step("mm-ext-1", t0, "mm_launch", "home", "", true)
	launch.Build = &BuildInfo{BuildType: BuildType, ExtensionPathResolved: "/ws/dist/chrome", BuildID: "0123456789abcdef"}
	p := mustRecord(t, s, launch)
	b, _ := os.ReadFile(p)
	if strings.Contains(string(b), `"buildId"`) || !strings.Contains(string(b), `"build:0123456789abcdef"`) {
		t.Fatalf("launch record: %s", b)
	}
	click := step("mm-ext-1", t0.Add(time.Second), "mm_click", "home", "", true)
	click.Tool.Target = &Target{A11yRef: "e7", Role: "button", Name: "Send"}
	click.Tool.Input = map[string]any{"a11yRef": "e7"}
	click.Build = &BuildInfo{BuildType: BuildType, ExtensionPathResolved: "/ws/dist/chrome"} // same build: no label
	p = mustRecord(t, s, click)
	b, _ = os.ReadFile(p)
	if strings.Contains(string(b), `"role"`) {
		t.Fatalf("click record keeps role in its target: %s", b)
	}
	_, recs, err := s.SessionSteps(context.Background(), "mm-ext-1")
	if err != nil || len(recs) != 2 {
		t.Fatalf("read back: %d %v", len(recs), err)
	}
	if recs[0].Build == nil || recs[0].Build.BuildID != "0123456789abcdef" {
		t.Errorf("build id not read back: %+v", recs[0].Build)
	}
	if recs[1].Build == nil || recs[1].Build.BuildID != "0123456789abcdef" {
		t.Errorf("the click's build id is not the launch's: %+v", recs[1].Build)
	}
	if tg := recs[1].Tool.Target; tg == nil || tg.Role != "button" || tg.Name != "Send" || tg.A11yRef != "e7" {
		t.Errorf("ref target not read back: %+v", tg)
	}
	if !slices.Contains(recs[1].Labels, "target-name:Send") {
		t.Errorf("labels %v", recs[1].Labels)
	}
}

// The audit file names every record written and every record refused
// (the e2e suite checks it for refusals).
func TestRecordAudit(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	audit := filepath.Join(t.TempDir(), "audit.log")
	s.SetAudit(audit)
	mustRecord(t, s, step("mm-aud-1", t0, "mm_get_state", "home", "", true))
	bad := step("mm-aud-1", t0, "mm_click", "home", "", true)
	bad.Tool.Target = &Target{A11yRef: "x1"} // not a ref the schema allows
	if _, err := s.Record(bad); err == nil {
		t.Fatal("an invalid record was written")
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ok mm_get_state ") || !strings.HasPrefix(lines[1], "refused mm_click mm-aud-1: ") {
		t.Fatalf("audit:\n%s", b)
	}
}

// A tab's selected state is in the tool's answer; the record's node
// (StepRecord v1's A11yNodeTrimmed is closed) leaves it out, without
// changing the answer's nodes.
func TestRecordDropsSelected(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	yes := true
	r := step("mm-sel-1", t0, "mm_accessibility_snapshot", "home", "", true)
	r.Observation.A11y.Nodes = []observation.A11yNode{{Ref: "e1", Role: "tab", Name: "Tokens", Selected: &yes}}
	p := mustRecord(t, s, r)
	b, _ := os.ReadFile(p)
	if strings.Contains(string(b), "selected") {
		t.Fatalf("record keeps selected: %s", b)
	}
	if r.Observation.A11y.Nodes[0].Selected == nil {
		t.Fatal("the answer's node was changed")
	}
}
