package e2e

import (
	"strings"
	"testing"
)

// TestKnowledgeAcrossHosts: a second host process on the same workspace
// reads the first one's session, finds its steps, and offers them as prior
// knowledge on the same screen.
func TestKnowledgeAcrossHosts(t *testing.T) {
	ws := walletWorkspace(t)
	first := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
	res := launch(t, first, map[string]any{"stateMode": "default", "goal": "open settings", "flowTags": []string{"settings"}, "tags": []string{"smoke"}})
	firstID := res["sessionId"].(string)
	must(t, first.Call("mm_describe_screen", map[string]any{}))
	must(t, first.Call("mm_click", map[string]any{"testId": "global-menu-settings"}))
	must(t, first.Call("mm_wait_for", map[string]any{"testId": "settings-back"}))
	must(t, first.Call("mm_click", map[string]any{"testId": "settings-back"}))
	must(t, first.Call("mm_cleanup", map[string]any{}))
	first.Close()

	second := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
	var sessions struct {
		Sessions []struct {
			SessionID string
			Goal      string
			FlowTags  []string
			Tags      []string
		}
	}
	must(t, second.Call("mm_knowledge_sessions", map[string]any{"filters": map[string]any{"flowTag": "settings"}})).Decode(t, &sessions)
	if len(sessions.Sessions) != 1 || sessions.Sessions[0].SessionID != firstID || sessions.Sessions[0].Goal != "open settings" {
		t.Fatalf("sessions %+v", sessions)
	}
	var none struct{ Sessions []any }
	must(t, second.Call("mm_knowledge_sessions", map[string]any{"filters": map[string]any{"flowTag": "swap"}})).Decode(t, &none)
	if len(none.Sessions) != 0 {
		t.Fatalf("flowTag filter: %+v", none)
	}
	var found struct {
		Matches []struct {
			Tool, SessionID string
		}
	}
	must(t, second.Call("mm_knowledge_search", map[string]any{"query": "global-menu-settings"})).Decode(t, &found)
	if len(found.Matches) == 0 || found.Matches[0].SessionID != firstID {
		t.Fatalf("search: %+v", found)
	}
	var sum struct {
		SessionID string
		StepCount int
		Recipe    []struct{ Tool, Notes string }
	}
	must(t, second.Call("mm_knowledge_summarize", map[string]any{"scope": map[string]any{"sessionId": firstID}})).Decode(t, &sum)
	if sum.StepCount < 5 || !strings.Contains(jsonOf(sum.Recipe), "global-menu-settings") {
		t.Fatalf("summarize: %+v", sum)
	}
	wantCode(t, second.Call("mm_knowledge_summarize", map[string]any{"scope": "all"}), "MM_INVALID_INPUT")
	wantCode(t, second.Call("mm_knowledge_summarize", map[string]any{"scope": map[string]any{"sessionId": "../../etc"}}), "MM_INVALID_INPUT")

	launch(t, second, map[string]any{"stateMode": "default", "flowTags": []string{"settings"}})
	var d struct {
		PriorKnowledge map[string]any `json:"priorKnowledge"`
	}
	must(t, second.Call("mm_describe_screen", map[string]any{})).Decode(t, &d)
	if d.PriorKnowledge == nil || !strings.Contains(jsonOf(d.PriorKnowledge), "global-menu-settings") {
		t.Fatalf("priorKnowledge does not suggest the earlier session's step: %s", jsonOf(d.PriorKnowledge))
	}
	must(t, second.Call("mm_cleanup", map[string]any{}))
}
