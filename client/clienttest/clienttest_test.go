package clienttest_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/client/clienttest"
	"github.com/mmcp-dev/mmcp/client/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.MaybeServe()
	os.Exit(m.Run())
}

func command(t *testing.T) client.Command {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return client.Command{Path: exe, Env: []string{testserver.EnvServe + "=1"}}
}

// recorder is a testing.TB that records what the helper logs and reports.
type recorder struct {
	testing.TB
	logs    []string
	errs    []string
	cleanup []func()
}

func (r *recorder) Helper()                           {}
func (r *recorder) Log(args ...any)                   { r.logs = append(r.logs, args[0].(string)) }
func (r *recorder) Errorf(format string, args ...any) { r.errs = append(r.errs, format) }
func (r *recorder) Cleanup(f func())                  { r.cleanup = append(r.cleanup, f) }
func (r *recorder) runCleanup() {
	for i := len(r.cleanup) - 1; i >= 0; i-- {
		r.cleanup[i]()
	}
}

func TestConnectLogsToTestAndClosesAtCleanup(t *testing.T) {
	rec := &recorder{TB: t}
	h := clienttest.Connect(rec, client.Options{Command: command(t)})
	if _, err := h.Call(context.Background(), "echo", map[string]any{"msg": "hi"}); err != nil {
		t.Fatal(err)
	}
	if len(rec.logs) != 2 || !strings.HasPrefix(rec.logs[0], `{"name":"echo","arguments":{"msg":"hi"},"_phase":"before"`) {
		t.Fatalf("test log = %q", rec.logs)
	}
	rec.runCleanup()
	if len(rec.errs) != 0 {
		t.Fatalf("cleanup reported %q", rec.errs)
	}
	if _, err := h.Call(context.Background(), "echo", nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("Call after cleanup = %v, want ErrClosed", err)
	}
}

func TestConnectReportsFailingClose(t *testing.T) {
	rec := &recorder{TB: t}
	clienttest.Connect(rec, client.Options{
		Command:    command(t),
		Adapter:    client.KeyAdapter{OpenTool: "session_open", CloseTool: "session_close"},
		SessionKey: "boom",
	})
	rec.runCleanup()
	if len(rec.errs) != 1 {
		t.Fatalf("cleanup errors = %q, want one", rec.errs)
	}
}

func TestConnectWithHandle(t *testing.T) {
	h := clienttest.Connect(t, client.Options{Command: command(t)})
	if len(h.Tools()) == 0 {
		t.Fatal("no tools listed")
	}
}
