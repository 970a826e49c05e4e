package proc

import (
	"strings"
	"sync"
)

// Tail keeps the last N lines written to it, for error messages that show
// the end of a child's output.
type Tail struct {
	mu    sync.Mutex
	n     int
	lines []string
}

// NewTail returns a Tail that keeps n lines.
func NewTail(n int) *Tail { return &Tail{n: n} }

// Add appends one line.
func (t *Tail) Add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

// String returns the kept lines joined by newlines.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
