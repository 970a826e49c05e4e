package session

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestSessionsPerOwner: each owner sees its own session only; without one
// a call answers MM_NO_ACTIVE_SESSION naming the launch tool.
func TestSessionsPerOwner(t *testing.T) {
	m := testManager(4)
	a := tools.WithOwner(context.Background(), "agent-a")
	b := tools.WithOwner(context.Background(), "agent-b")
	_, err := m.Active(a)
	if code(err) != sdk.CodeNoActiveSession || !strings.Contains(err.Error(), "mm_launch") {
		t.Fatalf("no session: %v", err)
	}
	m.add(t, "agent-a", "mm-a")
	if m.SessionID(a) != "mm-a" || m.SessionID(b) != "" {
		t.Fatalf("a sees %q, b sees %q", m.SessionID(a), m.SessionID(b))
	}
	if m.byID("mm-a") == nil || m.byID("mm-b") != nil {
		t.Fatal("byID")
	}
}

// TestSlotReleasedByFailedLaunch: a launch that fails releases its slot,
// and the limit's answer lists the running sessions.
func TestSlotReleasedByFailedLaunch(t *testing.T) {
	m := testManager(2)
	m.add(t, "agent-a", "mm-a")
	n, err := m.claimSlot("agent-b")
	if err != nil || n != 1 {
		t.Fatalf("second slot: %d, %v", n, err)
	}
	// The answer lists the sessions the asking client may act on: its own.
	if _, err := m.claimSlot("agent-a"); code(err) != sdk.CodeSessionLimit {
		t.Fatalf("third slot while one launches: %v", err)
	} else if e := err.(*sdk.Error); len(e.Details["sessions"].([]Info)) != 1 || !strings.Contains(e.Message, "--max-sessions") {
		t.Fatalf("limit answer: %+v", e)
	}
	m.releaseSlot(n)
	if n, err := m.claimSlot("agent-b"); err != nil || n != 1 {
		t.Fatalf("slot after the failed launch released it: %d, %v", n, err)
	}
	if testManager(0).cfg.MaxSessions != DefaultMaxSessions {
		t.Fatal("MaxSessions 0 is not the default")
	}
}

// node is a JSON-RPC endpoint answering eth_getBalance with result, or
// with an error object when rpcErr is set.
func node(t *testing.T, result, rpcErr string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Method string
			Params []any
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Method != "eth_getBalance" || len(req.Params) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if rpcErr != "" {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"`+rpcErr+`"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"`+result+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBalanceOf: the balance is read from the chain and written as the
// wallet writes it; a node's error or a non-hex answer is an error naming
// the call.
func TestBalanceOf(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ hex, want string }{
		{"0x15af1d78b58c40000", "25 ETH"},
		{"0x0", "0 ETH"},
	} {
		got, err := balanceOf(ctx, node(t, tc.hex, ""), "0x5cfe73b6021e818b776b421b1c4db2474086a7e1")
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.hex, got, err, tc.want)
		}
	}
	if _, err := balanceOf(ctx, node(t, "", "header not found"), "0x0"); err == nil || !strings.Contains(err.Error(), "eth_getBalance: header not found") {
		t.Errorf("node error: %v", err)
	}
	if _, err := balanceOf(ctx, node(t, "zz", ""), "0x0"); err == nil || !strings.Contains(err.Error(), "not hex") {
		t.Errorf("non-hex balance: %v", err)
	}
	if _, err := balanceOf(ctx, "http://127.0.0.1:1", "0x0"); err == nil {
		t.Error("no node: no error")
	}
}

// TestContext: an owner starts in the host's mode, switches its own mode
// (not another owner's) with SetContext, and is refused with
// MM_CONTEXT_SWITCH_BLOCKED while its session runs; ContextInfo says so.
func TestContext(t *testing.T) {
	m := NewManager(Config{Prefix: "mm", Mode: "e2e"}, plugins.New(plugins.Config{}, nil), nil, hclog.NewNullLogger())
	a := tools.WithOwner(context.Background(), "agent-a")
	b := tools.WithOwner(context.Background(), "agent-b")
	info := m.ContextInfo(a)
	if info["currentContext"] != "e2e" || info["hasActiveSession"] != false || info["sessionId"] != nil || info["canSwitchContext"] != true {
		t.Fatalf("info %v", info)
	}
	if _, err := m.SetContext(a, "prod"); err != nil {
		t.Fatal(err)
	}
	if m.Mode(a) != "prod" || m.Mode(b) != "e2e" {
		t.Fatalf("modes a %q b %q", m.Mode(a), m.Mode(b))
	}
	if _, err := m.SetContext(a, "staging"); code(err) != sdk.CodeInvalidConfig {
		t.Fatalf("unknown mode: %v", err)
	}
	m.add(t, "agent-a", "mm-a")
	_, err := m.SetContext(a, "e2e")
	if code(err) != sdk.CodeContextSwitchBlocked || !strings.Contains(err.Error(), "mm_cleanup") {
		t.Fatalf("switch while a session runs: %v", err)
	}
	info = m.ContextInfo(a)
	if info["currentContext"] != "prod" || info["hasActiveSession"] != true || info["sessionId"] != "mm-a" || info["canSwitchContext"] != false {
		t.Fatalf("info with a session %v", info)
	}
}
