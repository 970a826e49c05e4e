package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
	"github.com/mmcp-dev/mmcp/internal/testutil/pgtest"
)

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestKnowledgeCommands: migrate creates the schema, push imports a file
// store (twice: nothing twice), pull brings a filtered slice back to
// files, doctor's line reads the schema version.
func TestKnowledgeCommands(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.URL()
	flags := []string{"--knowledge-url", url, "--knowledge-project", "acme/wallet"}

	code, out, errs := runMain(t, append(flags, "knowledge", "migrate")...)
	want := "version " + strconv.Itoa(pgstore.SchemaVersion())
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("migrate = %d %q %q", code, out, errs)
	}
	if c := knowledgeCheck(context.Background(), url); !c.OK || !strings.Contains(c.Detail, "schema "+want) {
		t.Errorf("doctor check = %+v", c)
	}

	artifacts := t.TempDir()
	k, err := knowledge.Open(filepath.Join(artifacts, "llm-knowledge"), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for _, m := range []knowledge.SessionMeta{
		{SessionID: "mm-push-send", FlowTags: []string{"send"}},
		{SessionID: "mm-push-swap", FlowTags: []string{"swap"}},
	} {
		if err := k.WriteSession(m); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := k.Record(knowledge.StepRecord{SessionID: m.SessionID, Timestamp: now.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
				Tool: knowledge.ToolCall{Name: "mm_click", Target: &knowledge.Target{TestID: "b" + m.SessionID}}, Outcome: knowledge.Outcome{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 2 {
		code, out, errs = runMain(t, append(flags, "knowledge", "push", artifacts)...)
		if code != 0 || !strings.Contains(out, "pushed 8 files") || !strings.Contains(out, "acme/wallet") {
			t.Fatalf("push = %d %q %q", code, out, errs)
		}
	}
	pg, err := pgstore.Open(context.Background(), url, "acme/wallet")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	res, err := pg.Sessions(context.Background(), knowledge.SessionsQuery{})
	if err != nil || len(res.Sessions) != 2 {
		t.Fatalf("sessions after two pushes = %+v, %v", res, err)
	}

	dest := t.TempDir()
	code, out, errs = runMain(t, append(flags, "knowledge", "pull", "--out", dest, "--flow-tag", "send")...)
	if code != 0 || !strings.Contains(out, "pulled 1 sessions (4 new files)") {
		t.Fatalf("pull = %d %q %q", code, out, errs)
	}
	steps, _ := os.ReadDir(filepath.Join(dest, "mm-push-send", "steps"))
	if len(steps) != 3 {
		t.Errorf("pulled %d steps, want 3", len(steps))
	}
	if _, err := os.Stat(filepath.Join(dest, "mm-push-swap")); err == nil {
		t.Error("pull --flow-tag send brought the swap session")
	}
	pulled, err := knowledge.Open(dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := pulled.Summarize(context.Background(), "", knowledge.SummarizeQuery{SessionID: "mm-push-send"})
	if err != nil || sum.StepCount != 3 {
		t.Errorf("the pulled session reads as %+v, %v", sum, err)
	}
	code, out, _ = runMain(t, append(flags, "knowledge", "pull", "--out", dest, "--flow-tag", "send")...)
	if code != 0 || !strings.Contains(out, "(0 new files)") {
		t.Errorf("second pull = %d %q", code, out)
	}

	code, _, errs = runMain(t, "--knowledge-url", "postgres://u:hunter2@127.0.0.1:1/k", "knowledge", "migrate")
	if code != 1 || !strings.Contains(errs, "MM_INVALID_CONFIG") || strings.Contains(errs, "hunter2") {
		t.Errorf("password in URL: %d %q", code, errs)
	}
}
