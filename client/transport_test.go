package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mmcp-dev/mmcp/client/internal/testserver"
)

func TestConnectHTTPSendsBearerToken(t *testing.T) {
	t.Parallel()
	mcpHandler := server.NewStreamableHTTPServer(testserver.New(false))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := testCtx(t)

	if c, err := ConnectHTTP(ctx, srv.URL, "wrong", nil); err == nil {
		_ = c.Close()
		t.Fatal("ConnectHTTP with a wrong token succeeded")
	}
	h, _ := connect(t, Options{URL: srv.URL, Token: "s3cret"})
	res, err := h.Call(ctx, "echo", map[string]any{"text": "over http"})
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeText(t, Text(res)); got["text"] != "over http" {
		t.Fatalf("echo = %v", got)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestSpawnStdioBadCommand(t *testing.T) {
	t.Parallel()
	if c, err := SpawnStdio(testCtx(t), Command{Path: "/nonexistent/mcp-server"}); err == nil {
		_ = c.Close()
		t.Fatal("SpawnStdio of a missing binary succeeded")
	}
}

// The child outlives the context SpawnStdio was given.
func TestSpawnStdioOutlivesContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := SpawnStdio(ctx, serverCommand(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	// A real round trip (mcp-go's Ping is a no-op on modern servers).
	if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatalf("tools/list after the spawn context ended: %v", err)
	}
}
