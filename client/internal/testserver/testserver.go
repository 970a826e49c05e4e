// Package testserver is a small MCP server used by the client tests. A test
// binary re-execs itself with EnvServe set and calls MaybeServe from TestMain,
// so every test talks to a real subprocess over stdio.
package testserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Environment switches read by the server process.
const (
	// EnvServe makes MaybeServe serve MCP over stdio and exit.
	EnvServe = "MMCP_CLIENT_TESTSERVER"
	// EnvExtraTool adds the tool "extra", changing the registry hash.
	EnvExtraTool = "MMCP_CLIENT_TESTSERVER_EXTRA"
	// EnvPIDFile names a file the server writes its process id into.
	EnvPIDFile = "MMCP_CLIENT_TESTSERVER_PIDFILE"
)

// PNG is the image the "image" tool returns (a 1x1 transparent PNG).
var PNG = mustB64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

func mustB64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// MaybeServe serves the test server on stdin/stdout and exits the process
// when EnvServe is set; otherwise it returns immediately.
func MaybeServe() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	if p := os.Getenv(EnvPIDFile); p != "" {
		_ = os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if err := server.ServeStdio(New(os.Getenv(EnvExtraTool) == "1")); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Call is one tool call the server received.
type Call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type state struct {
	mu       sync.Mutex
	history  []Call
	sessions map[string]bool
	inflight int
	active   map[*int]bool
	changed  chan struct{}
}

func (s *state) record(name string, args map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = append(s.history, Call{Name: name, Arguments: args})
}

func jsonResult(v any) *mcp.CallToolResult {
	b, _ := json.Marshal(v)
	return mcp.NewToolResultText(string(b))
}

// New returns the test MCP server. With extra set it registers one more
// tool, which changes the registry hash.
func New(extra bool) *server.MCPServer {
	st := &state{sessions: map[string]bool{}, active: map[*int]bool{}, changed: make(chan struct{})}
	s := server.NewMCPServer("mmcp-client-testserver", "1.0.0", server.WithToolCapabilities(false))
	add := func(t mcp.Tool, h server.ToolHandlerFunc) {
		s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if t.Name != "history" {
				st.record(t.Name, req.GetArguments())
			}
			return h(ctx, req)
		})
	}

	add(mcp.NewTool("echo",
		mcp.WithDescription("Echo returns its arguments as a JSON object."),
		mcp.WithString("text", mcp.Description("Text to echo.")),
		mcp.WithString("testId", mcp.Description("Target element test id.")),
		mcp.WithString("password", mcp.Description("A secret.")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return jsonResult(req.GetArguments()), nil
	})

	add(mcp.NewTool("slow",
		mcp.WithDescription("Slow waits until `want` calls are in flight or `ms` elapse, and reports the most calls it saw in flight."),
		mcp.WithInteger("ms", mcp.Description("Longest wait in milliseconds.")),
		mcp.WithInteger("want", mcp.Description("In-flight calls to wait for.")),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		want := req.GetInt("want", 1)
		deadline := time.After(time.Duration(req.GetInt("ms", 50)) * time.Millisecond)
		// Every call in flight keeps the most calls it has seen at once,
		// updated by each arrival, so a call that came and went is counted.
		seen := new(int)
		st.mu.Lock()
		st.inflight++
		st.active[seen] = true
		for p := range st.active {
			*p = max(*p, st.inflight)
		}
		close(st.changed)
		st.changed = make(chan struct{})
		st.mu.Unlock()
		defer func() {
			st.mu.Lock()
			st.inflight--
			delete(st.active, seen)
			st.mu.Unlock()
		}()
	wait:
		for {
			st.mu.Lock()
			n, ch := *seen, st.changed
			st.mu.Unlock()
			if want > 1 && n >= want {
				break
			}
			select {
			case <-ch:
			case <-deadline:
				break wait
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		st.mu.Lock()
		n := *seen
		st.mu.Unlock()
		return jsonResult(map[string]any{"maxInflight": n}), nil
	})

	add(mcp.NewTool("session_open",
		mcp.WithDescription("Opens a named session."),
		mcp.WithString("sessionName", mcp.Required()),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.GetString("sessionName", "")
		st.mu.Lock()
		st.sessions[name] = true
		st.mu.Unlock()
		return jsonResult(map[string]any{"opened": name}), nil
	})

	add(mcp.NewTool("session_close",
		mcp.WithDescription("Closes a named session; the session \"boom\" fails to close."),
		mcp.WithString("sessionName", mcp.Required()),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.GetString("sessionName", "")
		if name == "boom" {
			return mcp.NewToolResultError("session boom cannot be closed"), nil
		}
		st.mu.Lock()
		delete(st.sessions, name)
		st.mu.Unlock()
		return jsonResult(map[string]any{"closed": name}), nil
	})

	add(mcp.NewTool("whoami",
		mcp.WithDescription("Whoami reports the session it was called with."),
		mcp.WithString("sessionName"),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.GetString("sessionName", "")
		st.mu.Lock()
		open := st.sessions[name]
		st.mu.Unlock()
		return jsonResult(map[string]any{"sessionName": name, "open": open}), nil
	})

	add(mcp.NewTool("big",
		mcp.WithDescription("Big returns n characters of text."),
		mcp.WithInteger("n", mcp.Required()),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", req.GetInt("n", 0))), nil
	})

	add(mcp.NewTool("image",
		mcp.WithDescription("Image returns a small PNG."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(base64.StdEncoding.EncodeToString(PNG), "image/png")}}, nil
	})

	add(mcp.NewTool("fail",
		mcp.WithDescription("Fail returns an error result."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("it failed"), nil
	})

	add(mcp.NewTool("envelope",
		mcp.WithDescription("Envelope returns an mmcp-style envelope; ok=false returns an error envelope."),
		mcp.WithBoolean("ok"),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetBool("ok", true) {
			return jsonResult(map[string]any{"ok": true, "result": map[string]any{"done": true}}), nil
		}
		return jsonResult(map[string]any{"ok": false, "error": map[string]any{"code": "MM_TEST_FAILED", "message": "envelope says no"}}), nil
	})

	add(mcp.NewTool("mm_launch",
		mcp.WithDescription("Launch an mmcp-style session."),
		mcp.WithString("stateMode", mcp.Enum("default", "onboarding")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetString("stateMode", "") == "onboarding" {
			return jsonResult(map[string]any{"ok": false, "error": map[string]any{"code": "MM_LAUNCH_FAILED", "message": "cannot onboard"}}), nil
		}
		return jsonResult(map[string]any{"ok": true, "result": map[string]any{"sessionId": "mm-1"}}), nil
	})

	add(mcp.NewTool("mm_cleanup",
		mcp.WithDescription("Clean up the mmcp-style session."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return jsonResult(map[string]any{"ok": true, "result": map[string]any{"cleanedUp": true}}), nil
	})

	add(mcp.NewTool("history",
		mcp.WithDescription("History lists every call the server has received (except history)."),
	), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		return jsonResult(st.history), nil
	})

	add(mcp.NewTool("nav.goto",
		mcp.WithDescription("Goto navigates to a URL."),
		mcp.WithString("url", mcp.Required(), mcp.Description("Where to go.")),
		mcp.WithString("waitUntil", mcp.Enum("load", "networkidle"), mcp.Description("When navigation is done.")),
		mcp.WithString("sessionName"),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return jsonResult(req.GetArguments()), nil
	})

	add(mcp.NewTool("nav.run.file",
		mcp.WithDescription("Run a file (a dotted method name)."),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return jsonResult(req.GetArguments()), nil
	})

	add(mcp.NewToolWithRawSchema("mm_knowledge_last",
		"Knowledge last returns the arguments it got inside an envelope.\nSecond line of the description.",
		json.RawMessage(`{
			"type": "object",
			"additionalProperties": false,
			"required": ["limit"],
			"properties": {
				"limit": {"type": "integer", "minimum": 1, "description": "How many steps."},
				"ratio": {"type": "number", "default": 0.5},
				"verbose": {"type": "boolean"},
				"scope": {"type": "string", "enum": ["current", "all"], "description": "Which sessions."},
				"tags": {"type": "array", "items": {"type": "string"}},
				"filters": {"type": "array", "items": {"type": "object", "properties": {"tool": {"type": "string"}, "min": {"type": "integer"}}, "required": ["tool"]}},
				"ports": {"type": "object", "properties": {"anvil": {"type": "integer"}, "fixtureServer": {"type": "integer"}}},
				"fixture": {"type": "object", "description": "Free-form fixture."},
				"labels": {"type": "object", "additionalProperties": {"type": "string"}},
				"sessionId": {"type": "string"},
				"anything": {}
			}
		}`),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return jsonResult(map[string]any{"ok": true, "result": req.GetArguments()}), nil
	})

	// Two tools sharing definitions through "$ref" (as mmcp's knowledge
	// tools do): a oneOf scope and a filters object.
	defs := `"definitions": {
		"Scope": {"oneOf": [
			{"type": "string", "enum": ["current", "all"]},
			{"type": "object", "additionalProperties": false, "properties": {"sessionId": {"type": "string"}}, "required": ["sessionId"]}
		]},
		"Filters": {"type": "object", "properties": {"tag": {"type": "string"}, "sinceHours": {"type": "integer"}}}
	}`
	for _, name := range []string{"scoped.search", "scoped.sessions"} {
		add(mcp.NewToolWithRawSchema(name, "Scoped returns its arguments inside an envelope.", json.RawMessage(`{
			"type": "object", `+defs+`,
			"properties": {
				"scope": {"$ref": "#/definitions/Scope"},
				"filters": {"$ref": "#/definitions/Filters"}
			}
		}`)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return jsonResult(map[string]any{"ok": true, "result": req.GetArguments()}), nil
		})
	}

	if extra {
		add(mcp.NewTool("extra", mcp.WithDescription("Extra exists only to change the registry.")),
			func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("extra"), nil
			})
	}
	return s
}
