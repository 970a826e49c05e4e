// Package testutil holds the small helpers the project's tests share.
package testutil

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/freeport"
)

// Buffer is a goroutine-safe bytes.Buffer, for logs written by one
// goroutine (or process pipe) and read by the test.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reset empties the buffer.
func (s *Buffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// RepoRoot walks up from the working directory (a package directory during
// go test) to the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, for
// a process the test starts to listen on (freeport.Loopback says why it is
// not the kernel's choice).
func FreePort(t testing.TB) int {
	t.Helper()
	ports, err := freeport.Loopback(1)
	if err != nil {
		t.Fatal(err)
	}
	return ports[0]
}

// CloseAtEnd closes c when the test ends; a failed close fails the test.
func CloseAtEnd(t testing.TB, c interface{ Close(context.Context) error }) {
	t.Helper()
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
}

// BusyPort returns a TCP port on 127.0.0.1 that a listener holds until the
// test ends: a port something else already uses.
func BusyPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}
