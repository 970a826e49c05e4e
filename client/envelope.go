package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mmcp-dev/mmcp/sdk/mmerr"
)

// Envelope is the JSON object an mmcp-style tool returns as its text content
// (every mmcp tool answers one): {"ok": true, "result": ...} or
// {"ok": false, "error": {"code", "message", "details"}}.
type Envelope struct {
	// OK is false for a domain failure.
	OK bool `json:"ok"`
	// Result is the tool's result object when OK.
	Result json.RawMessage `json:"result,omitempty"`
	// Error describes the failure when !OK.
	Error *mmerr.Error `json:"error,omitempty"`
	// Meta is the envelope's timing and session metadata.
	Meta *EnvelopeMeta `json:"meta,omitempty"`
}

// EnvelopeMeta is the "meta" object of an envelope.
type EnvelopeMeta struct {
	// Timestamp is when the server answered (RFC 3339).
	Timestamp string `json:"timestamp,omitempty"`
	// SessionID is the server's session, when there is one.
	SessionID string `json:"sessionId,omitempty"`
	// DurationMs is how long the tool ran.
	DurationMs int64 `json:"durationMs,omitempty"`
}

// ErrNotEnvelope is returned by DecodeEnvelope when the result's text is not
// an envelope object.
var ErrNotEnvelope = errors.New("tool result is not an envelope")

// DecodeEnvelope parses the text content of res as an Envelope.
func DecodeEnvelope(res *mcp.CallToolResult) (*Envelope, error) {
	if res == nil {
		return nil, ErrNotEnvelope
	}
	text := strings.TrimSpace(Text(res))
	if !strings.HasPrefix(text, "{") {
		return nil, ErrNotEnvelope
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &probe); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotEnvelope, err)
	}
	if _, ok := probe["ok"]; !ok {
		return nil, ErrNotEnvelope
	}
	var env Envelope
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotEnvelope, err)
	}
	return &env, nil
}

// Err returns the envelope's domain error, or nil when OK. A failed envelope
// without an error object yields MM_INTERNAL_ERROR.
func (e *Envelope) Err() error {
	if e == nil || e.OK {
		return nil
	}
	if e.Error == nil {
		return mmerr.Errorf(mmerr.CodeInternal, "tool returned ok=false without an error")
	}
	return e.Error
}

// Decode unmarshals the envelope's result into v.
func (e *Envelope) Decode(v any) error {
	if err := e.Err(); err != nil {
		return err
	}
	if len(e.Result) == 0 {
		return nil
	}
	if err := json.Unmarshal(e.Result, v); err != nil {
		return fmt.Errorf("decode envelope result: %w", err)
	}
	return nil
}

// Text returns the concatenated text content of res ("" for nil).
func Text(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := asText(c); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ResultError reports a failed call result: an error result (IsError) as an
// error carrying its text, an envelope with "ok": false as its *mmerr.Error,
// anything else as nil.
func ResultError(res *mcp.CallToolResult) error {
	if res == nil {
		return nil
	}
	if res.IsError {
		msg := Text(res)
		if env, err := DecodeEnvelope(res); err == nil && env.Err() != nil {
			return env.Err()
		}
		if msg == "" {
			msg = "tool returned an error result"
		}
		return &ToolError{Message: msg}
	}
	if env, err := DecodeEnvelope(res); err == nil {
		return env.Err()
	}
	return nil
}

// ToolError is an error result (IsError) of a tool call.
type ToolError struct {
	// Message is the result's text.
	Message string
}

func (e *ToolError) Error() string { return "tool error: " + e.Message }

func asText(c mcp.Content) (mcp.TextContent, bool) {
	switch t := c.(type) {
	case mcp.TextContent:
		return t, true
	case *mcp.TextContent:
		return *t, t != nil
	}
	return mcp.TextContent{}, false
}

func asImage(c mcp.Content) (mcp.ImageContent, bool) {
	switch t := c.(type) {
	case mcp.ImageContent:
		return t, true
	case *mcp.ImageContent:
		return *t, t != nil
	}
	return mcp.ImageContent{}, false
}
