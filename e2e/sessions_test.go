package e2e

import (
	"context"
	"errors"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/sdk"
)

// legacyClient connects to the serve with an MCP protocol that has
// sessions (Mcp-Session-Id), and no Mmcp-Client header.
func legacyClient(t testing.TB, p *serveProc) *mcpclient.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(p.State.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + p.State.Token}))
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 this test is about the legacy protocol's sessions, which the host still serves
	c := mcpclient.NewClient(tr, mcpclient.WithLegacyProtocolOnly())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "legacy", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// walletView is what a client sees of its session.
type walletView struct {
	State struct {
		IsUnlocked     bool    `json:"isUnlocked"`
		Balance        *string `json:"balance"`
		AccountAddress *string `json:"accountAddress"`
		CurrentScreen  string  `json:"currentScreen"`
	} `json:"state"`
}

// call calls a tool on h and decodes its result into v (nil: ignore it).
func call(t testing.TB, h *client.Handle, tool string, args map[string]any, v any) {
	t.Helper()
	env, err := h.CallEnvelope(context.Background(), tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if v != nil {
		if err := env.Decode(v); err != nil {
			t.Fatalf("%s: decode: %v (%s)", tool, err, env.Result)
		}
	}
}

// TestParallelSessionsOverHTTP: two MCP clients of one `mmcp serve --http`
// each launch the default wallet and get a session of their own (its own
// Chrome, Anvil and wallet state); what one does never shows
// in the other; another client can neither read, drive, end nor list a's
// session, launched without shared, while b's, shared, is in reach;
// cleaning one up leaves the other working; `mmcp call` picks a session
// by --session; nothing is left.
func TestParallelSessionsOverHTTP(t *testing.T) {
	ws := walletWorkspace(t)
	p := startServe(t, ws)
	a, b := p.connectAs(t, "agent-a"), p.connectAs(t, "agent-b")

	type launched struct {
		SessionID   string `json:"sessionId"`
		ExtensionID string `json:"extensionId"`
	}
	var la, lb launched
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, c := range []struct {
		h      *client.Handle
		out    *launched
		shared bool
	}{{a, &la, false}, {b, &lb, true}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := c.h.CallEnvelope(context.Background(), "mm_launch", map[string]any{"stateMode": "default", "shared": c.shared})
			if err == nil {
				err = env.Decode(c.out)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("launching two sessions at once: %v\nserve stderr:\n%s", err, tail(p.Stderr.String(), 40))
	}
	if la.SessionID == "" || la.SessionID == lb.SessionID {
		t.Fatalf("the two launches share a session: %+v %+v", la, lb)
	}

	var sa, sb walletView
	call(t, a, "mm_get_state", nil, &sa)
	call(t, b, "mm_get_state", nil, &sb)
	for name, s := range map[string]walletView{"a": sa, "b": sb} {
		if !s.State.IsUnlocked || s.State.Balance == nil || *s.State.Balance != "25 ETH" {
			t.Fatalf("session %s: %+v, want unlocked with 25 ETH", name, s.State)
		}
	}
	var ca, cb struct {
		Port   int    `json:"port"`
		RPCURL string `json:"rpcUrl"`
	}
	call(t, a, "chain_status", nil, &ca)
	call(t, b, "chain_status", nil, &cb)
	if ca.Port == 0 || ca.Port == cb.Port {
		t.Fatalf("chains: a on %d, b on %d; want two of their own", ca.Port, cb.Port)
	}

	// A transaction on a's chain and a locked wallet in a: b sees neither.
	call(t, a, "chain_set_balance", map[string]any{"address": *sa.State.AccountAddress, "wei": "1000000000000000000"}, nil)
	call(t, a, "mm_get_state", nil, &sa)
	if sa.State.Balance == nil || *sa.State.Balance != "1 ETH" {
		t.Fatalf("a after its balance changed: %+v", sa.State)
	}
	call(t, a, "mm_click", map[string]any{"testId": "global-menu-lock"}, nil)
	call(t, a, "mm_wait_for", map[string]any{"testId": "unlock-password"}, nil)
	call(t, a, "mm_get_state", nil, &sa)
	call(t, b, "mm_get_state", nil, &sb)
	if sa.State.IsUnlocked {
		t.Fatalf("a still unlocked after its lock: %+v", sa.State)
	}
	if !sb.State.IsUnlocked || sb.State.Balance == nil || *sb.State.Balance != "25 ETH" {
		t.Fatalf("b changed with a: %+v", sb.State)
	}

	// Another client naming a's session (not shared) can neither read,
	// drive nor end it, nor list it; b's (shared) is in reach.
	intruder := p.connectWith(t, map[string]string{"Mmcp-Client": "intruder", "Mmcp-Session": la.SessionID})
	for tool, args := range map[string]map[string]any{"mm_get_state": nil, "mm_click": {"testId": "global-menu-lock"}, "mm_cleanup": nil} {
		env, err := intruder.CallEnvelope(context.Background(), tool, args)
		var mmErr *sdk.Error
		if !errors.As(err, &mmErr) || mmErr.Code != sdk.CodeSessionNotFound {
			t.Fatalf("%s on a's session from another client: %+v %v, want %s", tool, env, err, sdk.CodeSessionNotFound)
		}
	}
	var listed struct{ Sessions []struct{ SessionID string } }
	call(t, p.connectAs(t, "intruder"), "mm_knowledge_sessions", nil, &listed)
	var ids []string
	for _, s := range listed.Sessions {
		ids = append(ids, s.SessionID)
	}
	if slices.Contains(ids, la.SessionID) || !slices.Contains(ids, lb.SessionID) {
		t.Fatalf("another client lists %v: want b's shared %s, not a's %s", ids, lb.SessionID, la.SessionID)
	}
	call(t, a, "mm_knowledge_sessions", nil, &listed)
	if !slices.ContainsFunc(listed.Sessions, func(s struct{ SessionID string }) bool { return s.SessionID == la.SessionID }) {
		t.Fatalf("a does not list its own session: %+v", listed)
	}
	// Nor read its records while it runs; b's (shared) it reads.
	other := p.connectAs(t, "intruder")
	knowledgeOf := readKnowledge(t, la.SessionID)
	if got := knowledgeOf(a); got.steps == 0 || got.searched == 0 {
		t.Fatalf("a reads its own records: %+v", got)
	}
	if got := knowledgeOf(other); !got.refused || got.steps != 0 || got.searched != 0 {
		t.Fatalf("another client reads a's running session: %+v; want every sessionId refused with %s and nothing from it in scope all", got, sdk.CodeSessionNotFound)
	}
	if got := readKnowledge(t, lb.SessionID)(other); got.refused || got.steps == 0 {
		t.Fatalf("another client on b's shared session: %+v, want its records", got)
	}
	r := mmcpCLI(t, ws, "call", "--session", lb.SessionID, "mm_knowledge_summarize", `{"scope":{"sessionId":"`+la.SessionID+`"}}`)
	wantCode(t, envelopeOf(t, r), sdk.CodeSessionNotFound)
	r = mmcpCLI(t, ws, "call", "--session", lb.SessionID, "mm_knowledge_last")
	if env := envelopeOf(t, r); r.Code != 0 || !env.OK || env.Meta.SessionID != lb.SessionID {
		t.Fatalf("call --session %s mm_knowledge_last: exit %d, %+v", lb.SessionID, r.Code, env)
	}
	call(t, a, "mm_get_state", nil, &sa)
	if sa.State.AccountAddress == nil {
		t.Fatalf("a's session after the other client's tries: %+v", sa.State)
	}
	var sbShared walletView
	call(t, p.connectWith(t, map[string]string{"Mmcp-Client": "intruder", "Mmcp-Session": lb.SessionID}), "mm_get_state", nil, &sbShared)
	if !sbShared.State.IsUnlocked {
		t.Fatalf("b's shared session from another client: %+v", sbShared.State)
	}

	// `mmcp call` attaches to the only session in its reach (b's, shared),
	// and to the one --session names; a's is not found.
	r = mmcpCLI(t, ws, "call", "mm_get_state")
	if env := envelopeOf(t, r); r.Code != 0 || env.Meta.SessionID != lb.SessionID {
		t.Fatalf("call: exit %d, %+v, want b's shared session", r.Code, env)
	}
	r = mmcpCLI(t, ws, "call", "--session", lb.SessionID, "mm_get_state")
	if env := envelopeOf(t, r); r.Code != 0 || env.Meta.SessionID != lb.SessionID {
		t.Fatalf("call --session %s: exit %d, %+v", lb.SessionID, r.Code, env)
	}
	wantCode(t, envelopeOf(t, mmcpCLI(t, ws, "call", "--session", la.SessionID, "mm_get_state")), sdk.CodeSessionNotFound)
	wantCode(t, envelopeOf(t, mmcpCLI(t, ws, "call", "--session", "mm-nope", "mm_get_state")), sdk.CodeSessionNotFound)

	// Two clients of the protocol that has MCP sessions (before
	// 2026-07-28) get a session each by their Mcp-Session-Id, without a
	// header.
	var legacyIDs []string
	var legacyCleanups []func() Envelope
	for _, lc := range []*mcpclient.Client{legacyClient(t, p), legacyClient(t, p)} {
		callLegacy := func(tool string, args map[string]any) Envelope {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = tool, args
			res, err := lc.CallTool(context.Background(), req)
			if err != nil {
				t.Fatalf("legacy %s: %v", tool, err)
			}
			return decodeEnvelope(t, res)
		}
		var l launched
		must(t, callLegacy("mm_launch", map[string]any{"stateMode": "default"})).Decode(t, &l)
		if env := callLegacy("mm_get_state", nil); !env.OK || env.Meta.SessionID != l.SessionID {
			t.Fatalf("legacy get_state: %+v", env)
		}
		legacyIDs = append(legacyIDs, l.SessionID)
		legacyCleanups = append(legacyCleanups, func() Envelope { return callLegacy("mm_cleanup", nil) })
	}
	for _, id := range legacyIDs {
		if id == la.SessionID || id == lb.SessionID || id == legacyIDs[0] && id == legacyIDs[1] {
			t.Fatalf("legacy clients' sessions %v, a %s, b %s: want one each", legacyIDs, la.SessionID, lb.SessionID)
		}
	}
	for _, cleanup := range legacyCleanups {
		must(t, cleanup())
	}

	// Cleaning a up leaves b working.
	kids := descendants(p.Cmd.Process.Pid)
	call(t, a, "mm_cleanup", nil, nil)
	// a's records, its session ended, are the knowledge store's history.
	if got := knowledgeOf(other); got.refused || got.steps == 0 || got.searched == 0 {
		t.Fatalf("another client on a's ended session: %+v, want its records", got)
	}
	call(t, b, "mm_get_state", nil, &sb)
	if !sb.State.IsUnlocked || *sb.State.Balance != "25 ETH" {
		t.Fatalf("b after a's cleanup: %+v", sb.State)
	}
	r = mmcpCLI(t, ws, "call", "mm_get_state")
	if env := envelopeOf(t, r); r.Code != 0 || env.Meta.SessionID != lb.SessionID {
		t.Fatalf("call with one session left: exit %d, %+v", r.Code, env)
	}
	call(t, b, "mm_cleanup", nil, nil)
	p.Stop(t, syscall.SIGTERM)
	if !eventually(15*time.Second, func() bool { return len(alive(kids)) == 0 }) {
		t.Fatalf("left behind: %v", alive(kids))
	}
}

// knowledgeRead is what a client read of one session's records.
type knowledgeRead struct {
	refused  bool // a {sessionId} query answered MM_SESSION_NOT_FOUND
	steps    int  // steps of the session: mm_knowledge_summarize's count, else those in mm_knowledge_last's scope all
	searched int  // its steps mm_knowledge_search (scope all) found
}

// readKnowledge returns what a client reads of session id through every
// knowledge tool: naming it (last, search, summarize, with scope or the
// deprecated sessionId), and scope all (last, search). It fails the test
// when the tools disagree on whether the session may be read.
func readKnowledge(t testing.TB, id string) func(h *client.Handle) knowledgeRead {
	return func(h *client.Handle) knowledgeRead {
		t.Helper()
		var out knowledgeRead
		named := 0
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"mm_knowledge_last", map[string]any{"scope": map[string]any{"sessionId": id}}},
			{"mm_knowledge_search", map[string]any{"query": "click", "scope": map[string]any{"sessionId": id}}},
			{"mm_knowledge_summarize", map[string]any{"scope": map[string]any{"sessionId": id}}},
			{"mm_knowledge_summarize", map[string]any{"sessionId": id}},
		} {
			env, err := h.CallEnvelope(context.Background(), c.tool, c.args)
			var mmErr *sdk.Error
			switch {
			case errors.As(err, &mmErr) && mmErr.Code == sdk.CodeSessionNotFound:
				named++
			case err != nil:
				t.Fatalf("%s %v: %v", c.tool, c.args, err)
			case c.tool == "mm_knowledge_summarize":
				var sum struct{ StepCount int }
				if err := env.Decode(&sum); err != nil {
					t.Fatal(err)
				}
				out.steps = sum.StepCount
			}
		}
		if named != 0 && named != 4 {
			t.Fatalf("%d of 4 queries naming %s refused", named, id)
		}
		out.refused = named == 4
		type steps struct{ SessionID string }
		var last struct{ Steps []steps }
		var search struct{ Matches []steps }
		call(t, h, "mm_knowledge_last", map[string]any{"scope": "all", "n": 200}, &last)
		call(t, h, "mm_knowledge_search", map[string]any{"query": "click get_state", "limit": 100}, &search)
		ofID := func(s steps) bool { return s.SessionID == id }
		if out.refused {
			out.steps = len(slices.DeleteFunc(last.Steps, func(s steps) bool { return !ofID(s) }))
		}
		out.searched = len(slices.DeleteFunc(search.Matches, func(s steps) bool { return !ofID(s) }))
		return out
	}
}
