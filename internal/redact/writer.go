package redact

import (
	"io"
	"sync"
)

// Writer masks, with Mask, every write to w: a log destination through
// which no recovery phrase or private key passes (hclog writes each entry
// with one Write).
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes Mask(p) and reports len(p) on success.
func (m *Writer) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.w.Write([]byte(Mask(string(p)))); err != nil {
		return 0, err
	}
	return len(p), nil
}
