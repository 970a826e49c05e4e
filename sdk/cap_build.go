package sdk

import "context"

// Every capability method takes a context, one request struct and, when it
// streams progress, Events; it returns one response struct and an error.
// A request or response without fields today is still a struct, so a field
// can be added later without changing any plugin's method signature. A
// domain failure is an *Error; the response is then ignored.

// Builder is the Build capability: it builds the wallet extension from the
// workspace (mm_build) and says where the build is (mm_launch loads it).
type Builder interface {
	// Build runs the build. A failed build is an *Error with
	// CodeBuildFailed (details.tail holds the end of the output) or
	// CodeDependenciesMissing.
	Build(ctx context.Context, req BuildRequest, ev Events) (BuildResponse, error)
	// IsBuilt reports whether the extension build exists.
	IsBuilt(ctx context.Context, req IsBuiltRequest) (IsBuiltResponse, error)
	// ExtensionPath says where the built extension is.
	ExtensionPath(ctx context.Context, req ExtensionPathRequest) (ExtensionPathResponse, error)
}

// BuildRequest is the input of mm_build.
type BuildRequest struct {
	BuildType string `json:"buildType"`
	Force     bool   `json:"force"`
}

// BuildResponse is the outcome of a successful build.
type BuildResponse struct {
	BuildType     string `json:"buildType"`
	ExtensionPath string `json:"extensionPath"`
	DurationMs    int64  `json:"durationMs"`
	// Skipped is true when the build existed and Force was false.
	Skipped bool `json:"skipped,omitempty"`
}

// IsBuiltRequest asks whether the build exists.
type IsBuiltRequest struct{}

// IsBuiltResponse says whether the build exists.
type IsBuiltResponse struct {
	Built bool `json:"built"`
}

// ExtensionPathRequest asks where the built extension is.
type ExtensionPathRequest struct{}

// ExtensionPathResponse is where the built extension is.
type ExtensionPathResponse struct {
	// Path is the absolute path of the unpacked extension.
	Path string `json:"path"`
}

// Watcher is the Build capability's watch lifecycle (the "buildWatch"
// capability): a long-running watch build (MetaMask's `yarn start:test`)
// whose rebuilds the host waits for, then reloads the extension in the
// running Chrome.
type Watcher interface {
	// StartWatch starts the workspace's watch command, or reports the one
	// that runs (idempotent), and answers at once.
	StartWatch(ctx context.Context, req StartWatchRequest) (StartWatchResponse, error)
	// WaitReady waits, within req.TimeoutMs (0: the plugin's default), for
	// the next finished rebuild: the newest one the caller has not been
	// answered yet, unless a rebuild is under way, then that one. The
	// watcher's initial build counts. A failed rebuild is an *Error with
	// CodeBuildFailed (details.output holds the watcher's error text,
	// details.seq the rebuild); running out of time is CodeTimeout; no
	// watcher is CodeInvalidInput.
	WaitReady(ctx context.Context, req WaitReadyRequest, ev Events) (WaitReadyResponse, error)
	// StopWatch kills the watcher's whole process group and returns once
	// it is gone. Stopping nothing is not an error.
	StopWatch(ctx context.Context, req StopWatchRequest) (StopWatchResponse, error)
}

// StartWatchRequest starts the watcher.
type StartWatchRequest struct{}

// StartWatchResponse describes the watcher that runs.
type StartWatchResponse struct {
	Status WatchStatus `json:"status"`
}

// WaitReadyRequest bounds the wait for a rebuild.
type WaitReadyRequest struct {
	// TimeoutMs bounds the wait; 0 means the plugin's default.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
}

// WaitReadyResponse is the rebuild waited for.
type WaitReadyResponse struct {
	Rebuild Rebuild `json:"rebuild"`
}

// StopWatchRequest stops the watcher.
type StopWatchRequest struct{}

// StopWatchResponse describes the watcher after the stop.
type StopWatchResponse struct {
	Status WatchStatus `json:"status"`
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
	// Warnings say what the rebuild's answer may lack: files the build id
	// could not hash (a FIFO, a link to a device, an unreadable file).
	Warnings []string `json:"warnings,omitempty"`
}
