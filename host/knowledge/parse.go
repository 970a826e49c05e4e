package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// rawStep is the part of a StepRecord the index needs. Decoding is lenient
// (unknown fields such as the TypeScript implementation's "context" or
// observation.priorKnowledge are ignored) but a file without schemaVersion
// 1, a timestamp, a tool name and an outcome is not a StepRecord.
type rawStep struct {
	SchemaVersion *int   `json:"schemaVersion"`
	Timestamp     string `json:"timestamp"`
	SessionID     string `json:"sessionId"`
	Tool          struct {
		Name   string  `json:"name"`
		Target *Target `json:"target"`
	} `json:"tool"`
	Outcome *struct {
		OK    bool `json:"ok"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"outcome"`
	Observation *observationFields `json:"observation"`
	Artifacts   *struct {
		Screenshot *struct {
			Path string `json:"path"`
		} `json:"screenshot"`
	} `json:"artifacts"`
	Labels []string `json:"labels"`

	ts time.Time
}

// observationFields is the part of an observation the index keeps.
type observationFields struct {
	State struct {
		CurrentScreen string `json:"currentScreen"`
		CurrentURL    string `json:"currentUrl"`
	} `json:"state"`
	TestIDs []testIDField `json:"testIds"`
	A11y    struct {
		Nodes []a11yField `json:"nodes"`
	} `json:"a11y"`
}

type testIDField struct {
	TestID string `json:"testId"`
}

type a11yField struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	Name string `json:"name"`
}

var errNotRecord = errors.New("not a StepRecord v1")

func parseStep(b []byte) (*rawStep, error) {
	r, ok := fastParseStep(b)
	if !ok {
		r = &rawStep{}
		if err := json.Unmarshal(b, r); err != nil {
			return nil, fmt.Errorf("%w: %w", errNotRecord, err)
		}
	}
	if r.SchemaVersion == nil || *r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%w: schemaVersion is not 1", errNotRecord)
	}
	if r.Tool.Name == "" || r.Outcome == nil {
		return nil, fmt.Errorf("%w: no tool name or outcome", errNotRecord)
	}
	ts, err := parseTime(r.Timestamp)
	if err != nil {
		return nil, fmt.Errorf("%w: timestamp: %w", errNotRecord, err)
	}
	r.ts = ts
	return r, nil
}

// parseMeta reads a session.json; it must carry schemaVersion 1.
func parseMeta(b []byte) (*SessionMeta, error) {
	var m SessionMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("session.json: %w", err)
	}
	if m.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("session.json: schemaVersion %d is not 1", m.SchemaVersion)
	}
	return &m, nil
}

func parseTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// formatTime is the record timestamp format: RFC 3339 UTC, milliseconds.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// fileTime is the filesystem-safe timestamp of step file names.
func fileTime(t time.Time) string {
	return t.UTC().Format("20060102T150405.000Z")
}
