package sdk

import (
	"errors"
	"fmt"
)

// Error codes of the mmcp envelope (spec 000 section 7 and spec 001). A
// plugin returns them inside an *Error; the host copies them verbatim into
// the MCP error envelope.
const (
	CodeInvalidInput          = "MM_INVALID_INPUT"
	CodeInvalidConfig         = "MM_INVALID_CONFIG"
	CodeCapabilityMissing     = "MM_CAPABILITY_MISSING"
	CodePluginCrashed         = "MM_PLUGIN_CRASHED"
	CodeInternal              = "MM_INTERNAL_ERROR"
	CodeCancelled             = "MM_CANCELLED"
	CodeTimeout               = "MM_TIMEOUT"
	CodeBuildFailed           = "MM_BUILD_FAILED"
	CodeDependenciesMissing   = "MM_DEPENDENCIES_MISSING"
	CodeSessionAlreadyRunning = "MM_SESSION_ALREADY_RUNNING"
	CodeNoActiveSession       = "MM_NO_ACTIVE_SESSION"
	CodeLaunchFailed          = "MM_LAUNCH_FAILED"
	CodePortInUse             = "MM_PORT_IN_USE"
	CodeNavigationFailed      = "MM_NAVIGATION_FAILED"
	CodeNotificationTimeout   = "MM_NOTIFICATION_TIMEOUT"
	CodeTargetNotFound        = "MM_TARGET_NOT_FOUND"
	CodeClickFailed           = "MM_CLICK_FAILED"
	CodeTypeFailed            = "MM_TYPE_FAILED"
	CodeWaitTimeout           = "MM_WAIT_TIMEOUT"
	CodeScreenshotFailed      = "MM_SCREENSHOT_FAILED"
	CodeTabNotFound           = "MM_TAB_NOT_FOUND"
	CodeClipboardFailed       = "MM_CLIPBOARD_FAILED"
	CodeChainNotRunning       = "MM_CHAIN_NOT_RUNNING"
	CodeContractDeployFailed  = "MM_SEED_FAILED"
	CodeKnowledgeError        = "MM_KNOWLEDGE_ERROR"
	// The extension came back from an in-place reload broken: an error
	// page, a crashed service worker, a screen that never settled.
	CodeReloadFailed = "MM_RELOAD_FAILED"
	// A part of a running session died: Chrome, the chain (Anvil or its
	// plugin), the fixture server.
	CodeBrowserClosed = "MM_BROWSER_CLOSED"
	CodeChainDown     = "MM_CHAIN_DOWN"
	CodeFixtureDown   = "MM_FIXTURE_DOWN"
	// The host runs without a workspace and the tool needs one.
	CodeNoWorkspace = "MM_NO_WORKSPACE"
	// Several sessions in one host: the session asked for (--session) is
	// not there, or several run and none was named, or a launch would pass
	// --max-sessions.
	CodeSessionNotFound  = "MM_SESSION_NOT_FOUND"
	CodeSessionAmbiguous = "MM_SESSION_AMBIGUOUS"
	CodeSessionLimit     = "MM_SESSION_LIMIT"
)

// Error is a domain failure: something the caller asked for could not be
// done, and the code says why. It travels over the plugin protocol as data
// (not as a gRPC error) and ends up as the envelope's error object. Any other
// Go error returned by a plugin is treated as an internal failure.
type Error struct {
	// Code is one of the Code* constants (or a plugin's own MM_* code).
	Code string `json:"code"`
	// Message is one sentence for a human or an agent; it should say what
	// to do next when there is something to do.
	Message string `json:"message"`
	// Details carries structured context (the offending field, a log tail).
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns e with the given details merged in.
func (e *Error) WithDetails(kv map[string]any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	for k, v := range kv {
		e.Details[k] = v
	}
	return e
}

// AsError finds an *Error in err's chain. When there is none it wraps err as
// an MM_INTERNAL_ERROR, so callers always get a code.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}
