package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client/internal/testserver"
	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

func sessionAdapter() KeyAdapter {
	return KeyAdapter{OpenTool: "session_open", CloseTool: "session_close"}
}

// waitGone waits briefly for pid to disappear.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 50 {
		if processGone(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server process %d is still running", pid)
}

func TestSessionKeyInjectedWhereSchemaHasIt(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{Adapter: sessionAdapter(), SessionKey: "s1"})
	ctx := testCtx(t)
	res, err := h.Call(ctx, "whoami", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeText(t, Text(res))
	if got["sessionName"] != "s1" || got["open"] != true {
		t.Fatalf("whoami = %v, want the open session s1", got)
	}
	res, err = h.Call(ctx, "echo", map[string]any{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if echo := decodeText(t, Text(res)); len(echo) != 1 || echo["text"] != "hi" {
		t.Fatalf("echo got %v: the session key leaked into a tool without it", echo)
	}
	// An explicit argument wins over the injected key.
	res, err = h.Call(ctx, "whoami", map[string]any{"sessionName": "other"})
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeText(t, Text(res)); got["sessionName"] != "other" {
		t.Fatalf("whoami with explicit key = %v", got)
	}
}

// When the adapter cannot close its session, Close still closes the
// transport: the error comes back and the server process is gone.
func TestCloseFailingAdapterStillClosesTransport(t *testing.T) {
	t.Parallel()
	env, pid := pidFileEnv(t)
	h, _ := connect(t, Options{Adapter: sessionAdapter(), SessionKey: "boom"}, env)
	ctx := testCtx(t)
	if _, err := h.Call(ctx, "echo", nil); err != nil {
		t.Fatal(err)
	}
	p := pid()
	if processGone(p) {
		t.Fatalf("server %d not running before Close", p)
	}
	err := h.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "boom cannot be closed") {
		t.Fatalf("Close = %v, want the adapter's close error", err)
	}
	waitGone(t, p)
	if again := h.Close(ctx); again == nil || again.Error() != err.Error() {
		t.Fatalf("second Close = %v, want the same error", again)
	}
}

func TestConnectDetectsRegistryDrift(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{})
	want := h.Hash()
	if want != RegistryHash(h.Tools()) || len(want) != 12 {
		t.Fatalf("Hash() = %q", want)
	}

	// Same registry: Connect succeeds.
	connect(t, Options{ExpectedHash: want})

	// The server grew a tool.
	env, pid := pidFileEnv(t)
	_, err := Connect(testCtx(t), Options{
		Command:      serverCommand(t, testserver.EnvExtraTool+"=1", env),
		ExpectedHash: want,
		Log:          LoggerOptions{Writer: &testutil.Buffer{}},
	})
	if !errors.Is(err, ErrRegistryDrift) {
		t.Fatalf("Connect = %v, want ErrRegistryDrift", err)
	}
	var de *DriftError
	if !errors.As(err, &de) || de.Want != want || de.Have == want {
		t.Fatalf("drift error = %#v", err)
	}
	wantMsg := "MCP registry drift detected (have " + de.Have + ", want " + want + "): regenerate with `mmcp gen` (go generate ./...)"
	if err.Error() != wantMsg {
		t.Fatalf("message = %q\nwant      %q", err.Error(), wantMsg)
	}
	waitGone(t, pid())
}

func TestMMCPAdapterLaunchesAndCleansUp(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{Adapter: MMCPAdapter{LaunchArgs: map[string]any{"stateMode": "default"}}})
	ctx := testCtx(t)
	res, err := h.Call(ctx, "history", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := Text(res); got != `[{"name":"mm_launch","arguments":{"stateMode":"default"}}]` {
		t.Fatalf("history after Connect = %s", got)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestMMCPAdapterLaunchFailure(t *testing.T) {
	t.Parallel()
	env, pid := pidFileEnv(t)
	_, err := Connect(testCtx(t), Options{
		Command: serverCommand(t, env),
		Adapter: MMCPAdapter{LaunchArgs: map[string]any{"stateMode": "onboarding"}},
		Log:     LoggerOptions{Writer: &testutil.Buffer{}},
	})
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != sdk.CodeLaunchFailed {
		t.Fatalf("Connect = %v, want an MM_LAUNCH_FAILED *sdk.Error", err)
	}
	waitGone(t, pid())
}

func TestCallEnvelope(t *testing.T) {
	t.Parallel()
	h, _ := connect(t, Options{})
	ctx := testCtx(t)
	env, err := h.CallEnvelope(ctx, "envelope", map[string]any{"ok": true})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Done bool }
	if err := env.Decode(&r); err != nil || !r.Done {
		t.Fatalf("Decode = %v, %+v", err, r)
	}
	env, err = h.CallEnvelope(ctx, "envelope", map[string]any{"ok": false})
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != "MM_TEST_FAILED" || env == nil || env.OK {
		t.Fatalf("CallEnvelope(ok=false) = %+v, %v", env, err)
	}
	if _, err := h.CallEnvelope(ctx, "fail", nil); err == nil || !strings.Contains(err.Error(), "it failed") {
		t.Fatalf("CallEnvelope(fail) = %v", err)
	}
}

func TestConnectNeedsOneTransport(t *testing.T) {
	t.Parallel()
	if _, err := Connect(context.Background(), Options{}); err == nil {
		t.Fatal("Connect without command or URL succeeded")
	}
	if _, err := Connect(context.Background(), Options{Command: Command{Path: "x"}, URL: "http://x"}); err == nil {
		t.Fatal("Connect with both succeeded")
	}
}
