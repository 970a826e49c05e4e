package knowledge

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
)

// NewView returns a Store that reads no files: it holds only the sessions
// and steps added to it, and answers the knowledge queries over them with
// the same code as a file store. The shared backend (package pgstore)
// renders its answers with one, so both backends answer alike. now is the
// time the queries compare against.
func NewView(now time.Time) *Store {
	s := &Store{log: hclog.NewNullLogger(), now: func() time.Time { return now }, ix: newIndex(), maxBytes: DefaultMaxRecordBytes}
	s.ix.built = true
	return s
}

// AddSession adds a session to a view: its session.json (nil when it has
// none) and its creation time (session.json's createdAt, else its first
// step's time; zero to derive it from the steps added).
func (s *Store) AddSession(id string, meta *SessionMeta, created time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	se := s.ix.session(id)
	se.setMeta(meta)
	if se.created.IsZero() {
		se.created = created
	}
}

// AddStep adds one StepRecord (its JSON) to a view as step stepID (its
// file name) of session id.
func (s *Store) AddStep(id, stepID string, record []byte) error {
	raw, err := parseStep(record)
	if err != nil {
		return fmt.Errorf("step %s/%s: %w", id, stepID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ix.addStep(s.ix.session(id), stepID, raw, fileStamp{})
	return nil
}

// ParseSession decodes a session.json as the index reads it.
func ParseSession(b []byte) (*SessionMeta, error) { return parseMeta(b) }

// ParseTime parses a record's RFC 3339 timestamp.
func ParseTime(s string) (time.Time, error) { return parseTime(s) }
