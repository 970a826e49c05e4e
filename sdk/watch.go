package sdk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Watcher is the Build capability's watch lifecycle (spec 000 v2, the
// "buildWatch" capability): a long-running watch build (MetaMask's `yarn
// start:test`) whose rebuilds the host waits for, then reloads the
// extension in the running Chrome.
type Watcher interface {
	// StartWatch starts the workspace's watch command, or reports the one
	// that runs (idempotent), and answers at once.
	StartWatch(ctx context.Context) (WatchStatus, error)
	// WaitReady waits, within timeoutMs (0: the plugin's default), for the
	// next finished rebuild: the newest one the caller has not been
	// answered yet, unless a rebuild is under way, then that one. The
	// watcher's initial build counts. A failed rebuild is an *Error with
	// CodeBuildFailed (details.output holds the watcher's error text,
	// details.seq the rebuild); running out of time is CodeTimeout; no
	// watcher is CodeInvalidInput.
	WaitReady(ctx context.Context, timeoutMs int64, ev Events) (Rebuild, error)
	// StopWatch kills the watcher's whole process group and returns once
	// it is gone. Stopping nothing is not an error.
	StopWatch(ctx context.Context) (WatchStatus, error)
}

// The states of a WatchStatus.
const (
	WatchStopped  = "stopped"  // no watcher
	WatchBuilding = "building" // a build (the initial one too) is under way
	WatchReady    = "ready"    // the last build finished and is good
	WatchFailed   = "failed"   // the last build failed
	WatchExited   = "exited"   // the watch command ended on its own
)

// WatchStatus describes the watcher.
type WatchStatus struct {
	Running bool   `json:"running"`
	State   string `json:"state"`
	// Command is the watch command line.
	Command string `json:"command,omitempty"`
	// Pid is the watch command's process id (its process group's leader).
	Pid           int    `json:"pid,omitempty"`
	ExtensionPath string `json:"extensionPath,omitempty"`
	// Rebuilds counts finished rebuilds, the initial build included.
	Rebuilds int64 `json:"rebuilds"`
	// Last is the last finished good rebuild.
	Last *Rebuild `json:"last,omitempty"`
	// Error is the last failed rebuild's (or the exit's) text.
	Error string `json:"error,omitempty"`
}

// Rebuild is one finished rebuild of a watcher.
type Rebuild struct {
	// Seq numbers the watcher's rebuilds from 1 (the initial build).
	Seq int64 `json:"seq"`
	// DurationMs runs from the first sign of the rebuild (output or a
	// change in the output directory) to its end.
	DurationMs int64  `json:"durationMs"`
	FinishedAt string `json:"finishedAt"`
	// By says how the end was seen: "pattern" (the watcher's output said
	// so) or "quiet" (the output directory stopped changing).
	By string `json:"by"`
	// BuildID is the content hash of the build (BuildID).
	BuildID string `json:"buildId,omitempty"`
}

// BuildID is the content hash of the unpacked extension in dir: SHA-256
// over manifest.json and every .js, .html and .json file (path and
// content), shortened to 16 hex digits. It names which build a step ran on.
func BuildID(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".js", ".html", ".json":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		_, _ = io.WriteString(h, filepath.ToSlash(rel)+"\x00")
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		_ = f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
