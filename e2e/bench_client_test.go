package e2e

import (
	"testing"
)

// benchClient is the MCP client BenchmarkSequence times mmcp through: a
// host on a test wallet workspace driven over its stdio with hand-written
// JSON-RPC (rawHost), one JSON parse per answer, as a client that parses
// the line it reads and nothing more (the TypeScript SDK's JSON.parse).
// mcp-go's client, which the other tests use, parses an answer about four
// times over (6 ms for a 139 KB screenshot answer on this machine): that
// is the client library's time, not the server's.
type benchClient struct {
	h  *rawHost
	id int
}

// walletRawHost starts a headless host on a test wallet workspace.
func walletRawHost(b testing.TB) (*benchClient, string) {
	b.Helper()
	ws := walletWorkspace(b)
	return &benchClient{h: startRawHost(b, "--repo", ws, "--headless"), id: 100}, ws
}

// call calls tool and waits for its answer: the envelope and the content
// after it (images). A failed call fails b.
func (c *benchClient) call(b testing.TB, tool string, args map[string]any) (env map[string]any, rest []any) {
	b.Helper()
	c.id++
	c.h.Call(c.id, tool, args)
	env = c.h.Envelope(c.id)
	if ok, _ := env["ok"].(bool); !ok {
		b.Fatalf("%s failed: %v", tool, env["error"])
	}
	res, _ := c.h.Answer(c.id).msg["result"].(map[string]any)
	content, _ := res["content"].([]any)
	return env, content[1:]
}
