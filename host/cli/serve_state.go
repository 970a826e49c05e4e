package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/mmcp-dev/mmcp/host/config"
)

// ServeState is the content of <repo>/.mmcp/serve.json: how a client of the
// same workspace reaches a running `mmcp serve --http`.
type ServeState struct {
	// URL is the streamable HTTP MCP endpoint.
	URL string `json:"url"`
	// Token is the bearer token every request must carry.
	Token string `json:"token"`
	// PID is the serving process.
	PID int `json:"pid"`
}

// ServeStatePath is where `mmcp serve --http` writes its ServeState for
// the workspace repo (the per-user state directory with no workspace).
func ServeStatePath(repo string) string {
	if repo == "" {
		return filepath.Join(config.StateDir(), "serve.json")
	}
	return filepath.Join(repo, ".mmcp", "serve.json")
}

// ReadServeState returns the ServeState of the workspace repo when a serve
// is running there: the file exists, parses and names a live process.
// A missing, unreadable or stale file gives (nil, false).
func ReadServeState(repo string) (*ServeState, bool) {
	b, err := os.ReadFile(ServeStatePath(repo))
	if err != nil {
		return nil, false
	}
	var st ServeState
	if err := json.Unmarshal(b, &st); err != nil || st.URL == "" || st.PID <= 0 {
		return nil, false
	}
	if !pidAlive(st.PID) {
		return nil, false
	}
	return &st, true
}

// pidAlive reports whether a process with this pid exists (best effort:
// pids are reused).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it
	}
	err = p.Signal(syscall.Signal(0))
	if err == nil || errors.Is(err, syscall.EPERM) {
		if b, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); rerr == nil && strings.Contains(string(b), ") Z ") {
			return false // a zombie: exited, not yet reaped
		}
		return true
	}
	return false
}

// writeServeState writes st to path exclusively (mode 0600, directory
// 0700): it fails with os.ErrExist when the file is already there. The
// content is written to a temporary file first and linked into place, so
// a reader never sees a half-written file.
func writeServeState(path string, st ServeState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("serve state: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".serve-*.json")
	if err != nil {
		return fmt.Errorf("serve state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("serve state: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("serve state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("serve state: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("serve state %s: %w", path, os.ErrExist)
		}
		return fmt.Errorf("serve state: %w", err)
	}
	return nil
}

// removeServeState removes path if it still holds st (another serve may
// have replaced a file it thought stale).
func removeServeState(path string, st ServeState) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var cur ServeState
	if json.Unmarshal(b, &cur) == nil && cur.PID == st.PID && cur.Token == st.Token {
		_ = os.Remove(path)
	}
}

// claimServeState writes st to path, replacing a stale file (one whose
// process is gone). It fails when a live serve owns the file; the error
// then names its URL.
func claimServeState(path string, st ServeState) error {
	for attempt := 0; attempt < 3; attempt++ {
		err := writeServeState(path, st)
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		if cur, ok := ReadServeState(filepath.Dir(filepath.Dir(path))); ok {
			return fmt.Errorf("mmcp serve is already running for this workspace at %s (pid %d)", cur.URL, cur.PID)
		}
		_ = os.Remove(path) // stale: its process is gone
	}
	return fmt.Errorf("serve state %s: could not claim it", path)
}

// newToken returns 32 random bytes, hex encoded.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
