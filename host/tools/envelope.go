package tools

import (
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Envelope is the response of every tool: ok, then the result or the
// error ({code, message, details}), and the call's meta.
type Envelope struct {
	OK     bool       `json:"ok"`
	Result any        `json:"result,omitempty"`
	Error  *sdk.Error `json:"error,omitempty"`
	Meta   Meta       `json:"meta"`
}

// Meta is the envelope's meta block.
type Meta struct {
	Timestamp  string `json:"timestamp"`
	SessionID  string `json:"sessionId,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

// Timestamp formats t the way every envelope and record does.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
