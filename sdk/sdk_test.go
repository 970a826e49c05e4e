package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/plugintest"
)

type echo struct{ stopped bool }

func (e *echo) Info() sdk.Info                              { return sdk.Info{Name: "echo", Version: "1.2.3"} }
func (e *echo) Configure(context.Context, sdk.Config) error { return nil }
func (e *echo) Stop(context.Context) error                  { e.stopped = true; return nil }
func (e *echo) Tools() []sdk.Tool {
	return []sdk.Tool{{Name: "say", Description: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

func (e *echo) CallTool(_ context.Context, req sdk.CallToolRequest, ev sdk.Events) (sdk.CallToolResponse, error) {
	if req.Name == "binary" {
		// A build tool's output tail is bytes, not always UTF-8.
		ev.Log("info", "line \xff1")
		return sdk.CallToolResponse{}, sdk.Errorf(sdk.CodeBuildFailed, "build failed: \xfe\xff tail").WithDetails(map[string]any{"tail": "\xff"})
	}
	if req.Name != "say" {
		return sdk.CallToolResponse{}, sdk.Errorf(sdk.CodeInvalidInput, "no tool %q", req.Name).WithDetails(map[string]any{"tool": req.Name})
	}
	ev.Progress(1, 2, "half")
	ev.Log("info", "said")
	return sdk.CallToolResponse{Result: map[string]json.RawMessage{"args": req.Arguments}}, nil
}

type events struct{ progress, logs []string }

func (e *events) Progress(_, _ float64, m string) { e.progress = append(e.progress, m) }
func (e *events) Log(_, m string)                 { e.logs = append(e.logs, m) }

func TestWire(t *testing.T) {
	p := &echo{}
	c := plugintest.Serve(t, p)
	ctx := context.Background()
	d, err := c.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "echo" || d.APIVersion != sdk.APIVersion || !d.Has(sdk.CapTools) || d.Has(sdk.CapChain) || len(d.Tools) != 1 {
		t.Fatalf("describe = %+v", d)
	}
	ev := &events{}
	res, err := c.CallTool(ctx, "say", json.RawMessage(`{"x":1}`), ev)
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `{"args":{"x":1}}` || len(ev.progress) != 1 || len(ev.logs) != 1 {
		t.Fatalf("res %s events %+v", res, ev)
	}
	_, err = c.CallTool(ctx, "nope", nil, nil)
	var de *sdk.Error
	if !errors.As(err, &de) || de.Code != sdk.CodeInvalidInput || de.Details["tool"] != "nope" {
		t.Fatalf("want domain error, got %v", err)
	}
	if err := c.Stop(ctx); err != nil || !p.stopped {
		t.Fatalf("stop: %v %v", err, p.stopped)
	}
}

// TestCallToolOverMessageLimit: arguments over gRPC's message limit answer
// MM_INVALID_INPUT, not gRPC's raw error.
func TestCallToolOverMessageLimit(t *testing.T) {
	c := plugintest.Serve(t, &echo{})
	big := json.RawMessage(`{"x":"` + strings.Repeat("a", 5<<20) + `"}`)
	_, err := c.CallTool(context.Background(), "say", big, nil)
	var de *sdk.Error
	if !errors.As(err, &de) || de.Code != sdk.CodeInvalidInput || strings.Contains(de.Message, "grpc") {
		t.Fatalf("want MM_INVALID_INPUT, got %v", err)
	}
	// The plugin still answers.
	if _, err := c.CallTool(context.Background(), "say", json.RawMessage(`{}`), nil); err != nil {
		t.Fatal(err)
	}
}

// A plugin's error message (and a log line) holding bytes that are not
// UTF-8 reaches the host as the domain error it is, each bad run shown as
// U+FFFD, instead of failing the call with a marshalling error.
func TestInvalidUTF8CrossesTheWire(t *testing.T) {
	c := plugintest.Serve(t, &echo{})
	ev := &events{}
	_, err := c.CallTool(context.Background(), "binary", nil, ev)
	var de *sdk.Error
	if !errors.As(err, &de) {
		t.Fatalf("want the plugin's domain error, got %v", err)
	}
	if de.Code != sdk.CodeBuildFailed || de.Message != "build failed: \uFFFD tail" || de.Details["tail"] != "\uFFFD" {
		t.Fatalf("error %+v", de)
	}
	if len(ev.logs) != 1 || ev.logs[0] != "line \uFFFD1" {
		t.Fatalf("logs %q", ev.logs)
	}
}
