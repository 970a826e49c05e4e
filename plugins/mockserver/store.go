package mockserver

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// maxRecords bounds the request records kept; the oldest go first.
const maxRecords = 2000

// Record is one request the proxy answered.
type Record struct {
	Seq    int    `json:"seq"`
	Time   string `json:"time"`
	Method string `json:"method"`
	URL    string `json:"url"`
	// Matched is false when no mock answered (the proxy failed the request).
	Matched bool   `json:"matched"`
	MockID  string `json:"mockId,omitempty"`
	Status  int    `json:"status"`
}

// MockInfo is a mock as list_mocks shows it.
type MockInfo struct {
	Mock
	Source    string `json:"source"`
	Hits      int    `json:"hits"`
	Exhausted bool   `json:"exhausted,omitempty"`
}

// store holds the mocks and the records. Mocks are kept oldest first and
// matched newest first, so a mock declared later overrides an earlier one
// (a tool's over a workspace file's over a default).
type store struct {
	mu      sync.Mutex
	mocks   []*mock
	nextID  int
	records []Record
	seq     int
}

// add adds m as the newest mock, replacing one with the same id.
func (s *store) add(m *mock) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.ID == "" {
		s.nextID++
		m.ID = fmt.Sprintf("m%d", s.nextID)
	}
	s.removeLocked(m.ID)
	s.mocks = append(s.mocks, m)
	return m.ID
}

func (s *store) removeLocked(id string) {
	for i, old := range s.mocks {
		if old.ID == id {
			s.mocks = append(s.mocks[:i], s.mocks[i+1:]...)
			return
		}
	}
}

// setFiles replaces the mocks that came from files (every source but
// "tool") with ms, kept older than the tools' mocks.
func (s *store) setFiles(ms []*mock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]*mock(nil), ms...)
	for _, m := range s.mocks {
		if m.Source == sourceTool {
			out = append(out, m)
		}
	}
	s.mocks = out
}

// match finds the newest live mock answering method and url and counts
// the hit.
func (s *store) match(method, url string) (*mock, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.mocks) - 1; i >= 0; i-- {
		m := s.mocks[i]
		if !m.exhausted() && m.matches(method, url) {
			m.hits++
			return m, true
		}
	}
	return nil, false
}

// record appends a request record.
func (s *store) record(r Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	r.Seq = s.seq
	if r.Time == "" {
		r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if len(s.records) >= maxRecords {
		s.records = append(s.records[:0], s.records[1:]...)
	}
	s.records = append(s.records, r)
}

// requests lists the records, oldest first, whose URL contains url (any
// when empty), only the unmatched ones when unmatched.
func (s *store) requests(url string, unmatched bool) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Record{}
	for _, r := range s.records {
		if (url == "" || strings.Contains(r.URL, url)) && (!unmatched || !r.Matched) {
			out = append(out, r)
		}
	}
	return out
}

// list lists the mocks in match order (the one tried first first).
func (s *store) list() []MockInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []MockInfo{}
	for i := len(s.mocks) - 1; i >= 0; i-- {
		m := s.mocks[i]
		out = append(out, MockInfo{Mock: m.Mock, Source: m.Source, Hits: m.hits, Exhausted: m.exhausted()})
	}
	return out
}

// clear removes the mocks whose source keep rejects, and the records when
// records; it returns how many of each it removed.
func (s *store) clear(keep func(source string) bool, records bool) (mocks, recs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.mocks[:0]
	for _, m := range s.mocks {
		if keep(m.Source) {
			kept = append(kept, m)
		} else {
			mocks++
		}
	}
	for i := len(kept); i < len(s.mocks); i++ {
		s.mocks[i] = nil
	}
	s.mocks = kept
	if records {
		recs = len(s.records)
		s.records = nil
	}
	return mocks, recs
}
