package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

func TestRecordLayoutAndSchema(t *testing.T) {
	s := newStore(t)
	mustSession(t, s, "mm-send-1", t0, "send 0.1 ETH", []string{"send"}, nil, "main")
	r := step("mm-send-1", t0, "mm_click", "home", "confirm-footer-button", true, "confirm-footer-button")
	r.Timestamp = "" // filled from the clock
	p := mustRecord(t, s, r)

	if want := filepath.Join(s.Root(), "mm-send-1", "steps", "20260115T120000.000Z-mm_click.json"); p != want {
		t.Fatalf("path = %s, want %s", p, want)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateRecord(b); err != nil {
		t.Fatal(err)
	}
	var got StepRecord
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != 1 || got.Timestamp != "2026-01-15T12:00:00.000Z" {
		t.Errorf("schemaVersion/timestamp = %d %q", got.SchemaVersion, got.Timestamp)
	}
	if strings.Join(got.Labels, ",") != "interaction,confirmation" {
		t.Errorf("labels = %v", got.Labels)
	}
	meta, err := os.ReadFile(filepath.Join(s.Root(), "mm-send-1", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	if m["schemaVersion"] != 1.0 || m["sessionId"] != "mm-send-1" || m["launch"] == nil {
		t.Errorf("session.json = %s", meta)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

func TestRecordSameMillisecondGetsUniqueNames(t *testing.T) {
	s := newStore(t)
	a := mustRecord(t, s, step("mm-dup-1", t0, "mm_click", "home", "a", true))
	b := mustRecord(t, s, step("mm-dup-1", t0, "mm_click", "home", "b", true))
	other, err := Open(s.Root(), nil) // another process writing the same session
	if err != nil {
		t.Fatal(err)
	}
	c := mustRecord(t, other, step("mm-dup-1", t0, "mm_click", "home", "c", true))
	if a == b || b == c || a == c {
		t.Fatalf("names collide: %s %s %s", a, b, c)
	}
	res, err := s.Summarize(context.Background(), "mm-dup-1", SummarizeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StepCount != 3 {
		t.Fatalf("stepCount = %d, want 3", res.StepCount)
	}
}

func TestRecordRedactsSecrets(t *testing.T) {
	s := newStore(t)
	r := step("mm-unlock-1", t0, "mm_type", "unlock", "unlock-password", true)
	n := 12
	r.Tool.Input = map[string]any{"testId": "unlock-password", "text": "correct horse", "password": "hunter2",
		"nested": map[string]any{"privateKey": "0xdeadbeef"}}
	r.Tool.TextRedacted, r.Tool.TextLength = true, &n
	p := mustRecord(t, s, r)
	b, _ := os.ReadFile(p)
	for _, secret := range []string{"correct horse", "hunter2", "0xdeadbeef"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("secret %q written to disk:\n%s", secret, b)
		}
	}
	if !strings.Contains(string(b), `"textLength": 12`) || !strings.Contains(string(b), "unlock-password") {
		t.Errorf("record lost non-secret fields:\n%s", b)
	}
}

func TestRecordRefusesInvalid(t *testing.T) {
	s := newStore(t)
	r := step("mm-bad-1", t0, "mm_click", "home", "x", true)
	r.Observation.A11y.Nodes = []observation.A11yNode{{Ref: "not-a-ref", Role: "button", Name: "x", Path: []string{}}}
	_, err := s.Record(r)
	wantCode(t, err, sdk.CodeKnowledgeError)
	if _, err := os.Stat(filepath.Join(s.Root(), "mm-bad-1", "steps")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(s.Root(), "mm-bad-1", "steps"))
		if len(entries) != 0 {
			t.Fatalf("invalid record written: %v", entries)
		}
	}
}

func TestTraversalIsRefused(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	// A directory outside the root that a traversal would reach.
	outside := filepath.Dir(s.Root())
	mustRecord(t, s, step("mm-real-1", t0, "mm_click", "home", "a", true))
	writeFile(t, filepath.Join(outside, "x", "steps", "a.json"), "{}")

	for _, id := range []string{"../x", "/etc", "a/b", "..", "...x", "x/../../etc", `a\b`, ""} {
		t.Run(id, func(t *testing.T) {
			_, err := s.Last(ctx, "", LastQuery{Scope: SessionScope(id)})
			wantCode(t, err, sdk.CodeInvalidInput)
			_, err = s.Search(ctx, "", SearchQuery{Query: "click", Scope: SessionScope(id)})
			wantCode(t, err, sdk.CodeInvalidInput)
			_, err = s.Summarize(ctx, "", SummarizeQuery{SessionID: id})
			if id == "" { // empty legacy id means "use the scope"
				wantCode(t, err, sdk.CodeNoActiveSession)
			} else {
				wantCode(t, err, sdk.CodeInvalidInput)
			}
			_, err = s.Summarize(ctx, "", SummarizeQuery{Scope: SessionScope(id)})
			wantCode(t, err, sdk.CodeInvalidInput)
			_, err = s.Record(step(id, t0, "mm_click", "home", "a", true))
			wantCode(t, err, sdk.CodeInvalidInput)
			err = s.WriteSession(SessionMeta{SessionID: id})
			wantCode(t, err, sdk.CodeInvalidInput)
			if id != "" {
				_, err = s.Last(ctx, id, LastQuery{})
				wantCode(t, err, sdk.CodeInvalidInput)
			}
		})
	}
	// The handlers refuse the same through JSON.
	_, err := s.Search(ctx, "", decodeQuery[SearchQuery](t, `{"query":"x","scope":{"sessionId":"../x"}}`))
	wantCode(t, err, sdk.CodeInvalidInput)
	_, err = s.Summarize(ctx, "", decodeQuery[SummarizeQuery](t, `{"sessionId":"../../etc"}`))
	wantCode(t, err, sdk.CodeInvalidInput)
}

func TestSymlinkOutsideRootIsNotRead(t *testing.T) {
	s := newStore(t)
	mustRecord(t, s, step("mm-real-1", t0, "mm_click", "home", "a", true))
	other := newStore(t)
	mustRecord(t, other, step("mm-secret-1", t0, "mm_click", "home", "leaked-testid", true))
	if err := os.Symlink(filepath.Join(other.Root(), "mm-secret-1"), filepath.Join(s.Root(), "mm-link-1")); err != nil {
		t.Skip("no symlinks:", err)
	}
	res, err := s.Search(context.Background(), "", SearchQuery{Query: "leaked"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 0 {
		t.Fatalf("read through a symlink out of the root: %+v", res.Matches)
	}
}

func TestCorruptedAndForeignFilesAreSkipped(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustSession(t, s, "mm-good-1", t0, "", []string{"send"}, nil, "")
	mustRecord(t, s, step("mm-good-1", t0, "mm_click", "home", "send-button", true))
	steps := filepath.Join(s.Root(), "mm-good-1", "steps")
	writeFile(t, filepath.Join(steps, "20260115T120001.000Z-mm_click.json"), `{"schemaVersion": 1, "tool": {"name": "mm_cl`)
	writeFile(t, filepath.Join(steps, "20260115T120002.000Z-mm_click.json"), `{"schemaVersion": 2, "timestamp": "2026-01-15T12:00:02Z", "tool": {"name": "mm_click"}, "outcome": {"ok": true}}`)
	writeFile(t, filepath.Join(steps, "notes.json"), `["not", "a", "record"]`)
	writeFile(t, filepath.Join(steps, "README.txt"), `ignored: not .json`)
	writeFile(t, filepath.Join(s.Root(), "mm-broken-1", "session.json"), `{{{`)
	writeFile(t, filepath.Join(s.Root(), "_global", "index.json"), `{}`) // not a session id

	res, err := s.Last(ctx, "", LastQuery{Scope: AllScope})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 1 || res.Steps[0].Tool != "mm_click" {
		t.Fatalf("steps = %+v", res.Steps)
	}
	sessions, stepsN, skipped := s.Stats()
	if stepsN != 1 || skipped != 4 {
		t.Fatalf("stats = %d sessions, %d steps, %d skipped; want 1 step, 4 skipped", sessions, stepsN, skipped)
	}
	// A skipped file that gets fixed is picked up.
	writeFile(t, filepath.Join(steps, "20260115T120001.000Z-mm_click.json"), mustJSON(t, step("mm-good-1", t0.Add(time.Second), "mm_click", "home", "fixed", true)))
	touchDir(t, steps)
	res, err = s.Last(ctx, "mm-good-1", LastQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 {
		t.Fatalf("fixed file not picked up: %+v", res.Steps)
	}
}

func mustJSON(t testing.TB, r StepRecord) string {
	t.Helper()
	r.SchemaVersion = 1
	normalizeObservation(&r.Observation)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// touchDir moves a directory's mtime, as a file creation by a slower
// clock tick would.
func touchDir(t testing.TB, dir string) {
	t.Helper()
	future := time.Now().Add(time.Second)
	if err := os.Chtimes(dir, future, future); err != nil {
		t.Fatal(err)
	}
}

func TestSecondStoreSeesFirstStoresSessions(t *testing.T) {
	ctx := context.Background()
	a := newStore(t)
	b, err := Open(a.Root(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.now = a.now
	// b builds its index before a writes anything.
	if res, err := b.Sessions(ctx, SessionsQuery{}); err != nil || len(res.Sessions) != 0 {
		t.Fatalf("sessions = %+v, %v", res, err)
	}
	mustSession(t, a, "mm-a-1", t0, "swap tokens", []string{"swap"}, nil, "")
	mustRecord(t, a, step("mm-a-1", t0, "mm_click", "home", "swap-button", true))
	res, err := b.Search(ctx, "", SearchQuery{Query: "exchange"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || res.Matches[0].SessionID != "mm-a-1" {
		t.Fatalf("b does not see a's step: %+v", res.Matches)
	}
	// More steps and an updated session.json arrive later.
	mustRecord(t, a, step("mm-a-1", t0.Add(time.Second), "mm_click", "home", "swap-confirm", true))
	mustSession(t, a, "mm-a-1", t0, "swap tokens", []string{"swap", "tx-confirmation"}, nil, "")
	last, err := b.Last(ctx, "mm-a-1", LastQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(last.Steps) != 2 {
		t.Fatalf("b sees %d steps, want 2", len(last.Steps))
	}
	ss, err := b.Sessions(ctx, SessionsQuery{Filters: &Filters{FlowTag: "tx-confirmation"}})
	if err != nil || len(ss.Sessions) != 1 {
		t.Fatalf("updated session.json not seen: %+v %v", ss, err)
	}
	// A removed session disappears.
	if err := os.RemoveAll(filepath.Join(a.Root(), "mm-a-1")); err != nil {
		t.Fatal(err)
	}
	ss, err = b.Sessions(ctx, SessionsQuery{})
	if err != nil || len(ss.Sessions) != 0 {
		t.Fatalf("removed session still listed: %+v %v", ss, err)
	}
}

// TestReadsTypeScriptSessions reads files laid out and shaped like
// MetaMask's client-mcp-core writes them.
func TestReadsTypeScriptSessions(t *testing.T) {
	s := newStore(t)
	dir := filepath.Join(s.Root(), "mm-lx2k9a-4f8g2h")
	writeFile(t, filepath.Join(dir, "session.json"), `{
  "schemaVersion": 1,
  "sessionId": "mm-lx2k9a-4f8g2h",
  "createdAt": "2026-01-15T10:00:00.000Z",
  "goal": "Send 0.01 ETH to account 2",
  "flowTags": ["send"],
  "tags": ["smoke"],
  "launch": {"stateMode": "default"}
}`)
	writeFile(t, filepath.Join(dir, "steps", "20260115-100001-123-mm_click.json"), `{
  "schemaVersion": 1,
  "timestamp": "2026-01-15T10:00:01.123Z",
  "sessionId": "mm-lx2k9a-4f8g2h",
  "context": "e2e",
  "environment": {"platform": "darwin", "nodeVersion": "v20.11.0"},
  "tool": {"name": "mm_click", "input": {"testId": "eth-overview-send"}, "target": {"testId": "eth-overview-send"}},
  "timing": {"durationMs": 120},
  "outcome": {"ok": true},
  "observation": {
    "state": {"isLoaded": true, "currentUrl": "chrome-extension://x/home.html#/send", "extensionId": "x", "isUnlocked": true, "currentScreen": "home", "accountAddress": null, "networkName": "Localhost 8545", "chainId": 1337, "balance": "25 ETH"},
    "testIds": [{"testId": "eth-overview-send", "tag": "button", "text": "Send", "visible": true}],
    "a11y": {"nodes": [{"ref": "e1", "role": "button", "name": "Send", "path": []}]},
    "priorKnowledge": {"schemaVersion": 1, "generatedAt": "2026-01-15T10:00:01.000Z"}
  },
  "labels": ["interaction"]
}`)
	ctx := context.Background()
	res, err := s.Search(ctx, "", SearchQuery{Query: "transfer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || res.Matches[0].SessionGoal != "Send 0.01 ETH to account 2" {
		t.Fatalf("matches = %+v", res.Matches)
	}
	ss, err := s.Sessions(ctx, SessionsQuery{Filters: &Filters{Tag: "smoke"}})
	if err != nil || len(ss.Sessions) != 1 || ss.Sessions[0].CreatedAt != "2026-01-15T10:00:00.000Z" {
		t.Fatalf("sessions = %+v %v", ss, err)
	}
	if _, _, skipped := s.Stats(); skipped != 0 {
		t.Fatalf("skipped %d TypeScript files", skipped)
	}
}

func TestFileNameFormat(t *testing.T) {
	s := newStore(t)
	p := mustRecord(t, s, step("mm-fmt-1", time.Date(2026, 1, 15, 12, 34, 56, 789e6, time.UTC), "mm_wait_for_notification", "home", "", true))
	if !regexp.MustCompile(`/steps/20260115T123456\.789Z-mm_wait_for_notification\.json$`).MatchString(p) {
		t.Fatalf("file name %s", p)
	}
}

func TestIncrementalRefreshReadsOnlyNewFiles(t *testing.T) {
	ctx := context.Background()
	a := newStore(t)
	for i := range 3 {
		id := fmt.Sprintf("mm-inc-%d", i)
		mustSession(t, a, id, t0, "", nil, nil, "")
		mustRecord(t, a, step(id, t0, "mm_click", "home", "x", true))
	}
	b, err := Open(a.Root(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Last(ctx, "", LastQuery{Scope: AllScope}); err != nil {
		t.Fatal(err)
	}
	if b.reads != 6 {
		t.Fatalf("cold start read %d files, want 6", b.reads)
	}
	time.Sleep(racyWindow + 50*time.Millisecond) // past coarse mtimes
	if _, err := b.Last(ctx, "", LastQuery{Scope: AllScope}); err != nil {
		t.Fatal(err)
	}
	if b.reads != 6 {
		t.Fatalf("warm query re-read files: %d reads", b.reads)
	}
	mustRecord(t, a, step("mm-inc-1", t0.Add(time.Second), "mm_type", "home", "y", true))
	res, err := b.Last(ctx, "", LastQuery{Scope: AllScope})
	if err != nil {
		t.Fatal(err)
	}
	if b.reads != 7 || len(res.Steps) != 4 || res.Steps[0].Tool != "mm_type" {
		t.Fatalf("after one new file: %d reads, steps %+v", b.reads, res.Steps)
	}
}

// A screen the v1 schema lacks is recorded as the closest v1 name with a
// screen label, and the knowledge tools read the real name back.
func TestRecordKeepsScreensOutsideV1(t *testing.T) {
	s := newStore(t)
	r := step("mm-screens-1", t0, "mm_click", "connect", "page-container-footer-next", true)
	msg := "Message: boom"
	r.Observation.State.ErrorMessage = &msg
	b, err := os.ReadFile(mustRecord(t, s, r))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"currentScreen": "unknown"`) || !strings.Contains(string(b), `"screen:connect"`) || strings.Contains(string(b), "boom") {
		t.Fatalf("record:\n%s", b)
	}
	mustRecord(t, s, step("mm-screens-1", t0.Add(time.Second), "mm_click", "onboarding-pin-extension", "pin-extension-done", true))
	res, err := s.Search(context.Background(), "", SearchQuery{Query: "page-container-footer-next", Filters: &Filters{Screen: "connect"}})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Screen != "connect" {
		t.Fatalf("search by screen connect: %+v, %v", res, err)
	}
	last, err := s.Last(context.Background(), "mm-screens-1", LastQuery{N: 1})
	if err != nil || len(last.Steps) != 1 || last.Steps[0].Screen != "onboarding-pin-extension" {
		t.Fatalf("last: %+v, %v", last, err)
	}
}
