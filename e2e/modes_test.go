package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestProdMode: a client switches to the prod environment mode (docs/modes.md)
// with mm_set_context; a launch there refuses what only e2e has
// (seedContracts) with MM_NOT_IN_MODE, and a plain launch brings the test
// wallet up as installed, on onboarding, with no chain and no fixture; a
// switch while that session runs is refused, and mm_get_context says why.
func TestProdMode(t *testing.T) {
	h, _ := walletHost(t)
	var info struct {
		CurrentContext   string
		HasActiveSession bool
		SessionID        *string
		CanSwitchContext bool
		Capabilities     struct{ Available []string }
	}
	must(t, h.Call("mm_get_context", map[string]any{})).Decode(t, &info)
	if info.CurrentContext != "e2e" || info.HasActiveSession || info.SessionID != nil || !info.CanSwitchContext ||
		!slices.Contains(info.Capabilities.Available, "chain") || !slices.Contains(info.Capabilities.Available, "fixture") {
		t.Fatalf("e2e context %+v", info)
	}
	must(t, h.Call("mm_set_context", map[string]any{"context": "prod"}))
	must(t, h.Call("mm_get_context", map[string]any{})).Decode(t, &info)
	if info.CurrentContext != "prod" || slices.Contains(info.Capabilities.Available, "chain") || slices.Contains(info.Capabilities.Available, "fixture") {
		t.Fatalf("prod context %+v", info)
	}

	env := h.Call("mm_launch", map[string]any{"seedContracts": []string{"hst"}})
	wantCode(t, env, "MM_NOT_IN_MODE")
	if env.Error.Details["field"] != "seedContracts" || !strings.Contains(env.Error.Message, "mm_set_context") {
		t.Fatalf("refusal %q %v", env.Error.Message, env.Error.Details)
	}

	// Another session's (or a dapp developer's) fixture server listens on
	// the port test builds read their state from (TestMain holds 12345
	// with a counting handler): a prod session's Chrome must never reach
	// it.
	before := foreignFixture.requests.Load()
	env = h.Call("mm_launch", map[string]any{})
	if !env.OK {
		t.Fatalf("prod launch: %+v\n%s", env.Error, tail(h.Stderr.String(), 20))
	}
	if !foreignFixture.held {
		t.Log("another process holds 127.0.0.1:12345: the wallet's onboarding screen below shows it read no state there")
	} else if n := foreignFixture.requests.Load() - before; n != 0 {
		t.Fatalf("the prod session's Chrome made %d requests to a foreign fixture server on localhost:12345", n)
	}
	var res map[string]any
	env.Decode(t, &res)
	st := launchState(t, res)
	if res["context"] != "prod" || st.CurrentScreen != "onboarding-welcome" || st.IsUnlocked {
		t.Fatalf("prod launch: context %v, state %+v", res["context"], st)
	}
	if s := steps(res); !slices.Contains(s, "mode") || slices.Contains(s, "chain") || slices.Contains(s, "fixture") || slices.Contains(s, "unlock") {
		t.Fatalf("prod launch steps %v", s)
	}

	wantCode(t, h.Call("mm_set_context", map[string]any{"context": "e2e"}), "MM_CONTEXT_SWITCH_BLOCKED")
	must(t, h.Call("mm_get_context", map[string]any{})).Decode(t, &info)
	if !info.HasActiveSession || info.SessionID == nil || *info.SessionID != res["sessionId"] || info.CanSwitchContext {
		t.Fatalf("context with a session %+v", info)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
	must(t, h.Call("mm_set_context", map[string]any{"context": "e2e"}))
}
