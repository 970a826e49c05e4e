package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
	"github.com/mmcp-dev/mmcp/internal/testutil/pgtest"
)

// TestSharedKnowledgeTwoHosts: two hosts, each with its own workspace and
// artifacts dir, share one PostgreSQL. Host A's mm_get_state reports its
// outbox drained, and host B (no session of its own) finds A's session
// by mm_knowledge_search (scope all) and mm_knowledge_sessions.
func TestSharedKnowledgeTwoHosts(t *testing.T) {
	srv := pgtest.Start(t)
	if _, err := pgstore.MigrateURL(context.Background(), srv.URL()); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--knowledge-url", srv.URL(), "--knowledge-project", "e2e/shared"}
	a, _ := walletHost(t, flags...)
	args := launchArgs(t)
	args["goal"], args["flowTags"] = "shared knowledge e2e", []string{"send"}
	launch(t, a, args)
	must(t, a.Call("mm_describe_screen", map[string]any{}))
	sid := must(t, a.Call("mm_get_state", map[string]any{})).Meta.SessionID
	var health struct {
		Health struct {
			Knowledge *struct {
				Status string
				Queued int
			}
		}
	}
	if !eventually(10*time.Second, func() bool {
		must(t, a.Call("mm_get_state", map[string]any{})).Decode(t, &health)
		k := health.Health.Knowledge
		return k != nil && k.Status == "up" && k.Queued == 0
	}) {
		t.Fatalf("host A's knowledge health = %+v, want up with nothing queued", health.Health.Knowledge)
	}

	b, _ := walletHost(t, flags...)
	res := must(t, b.Call("mm_knowledge_search", map[string]any{"query": "describe screen", "scope": "all"}))
	if !strings.Contains(string(res.Result), sid) || sid == "" {
		t.Fatalf("host B's search does not find host A's session %q: %s", sid, res.Result)
	}
	res = must(t, b.Call("mm_knowledge_sessions", map[string]any{"filters": map[string]any{"flowTag": "send"}}))
	if !strings.Contains(string(res.Result), "shared knowledge e2e") {
		t.Fatalf("host B's sessions do not list host A's: %s", res.Result)
	}
}
