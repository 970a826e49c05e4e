package sdk

import "github.com/mmcp-dev/mmcp/sdk/mmerr"

// Error codes of the mmcp error envelope (docs/reference.md lists each with
// its way forward). A plugin returns them inside an *Error; the host copies them verbatim into
// the MCP error envelope.
const (
	CodeInvalidInput          = "MM_INVALID_INPUT"
	CodeInvalidConfig         = "MM_INVALID_CONFIG"
	CodeCapabilityMissing     = "MM_CAPABILITY_MISSING"
	CodePluginCrashed         = "MM_PLUGIN_CRASHED"
	CodeInternal              = mmerr.CodeInternal
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
	// A click's target stayed covered by another element (a modal or
	// popover left open) for discovery.CoveredFor.
	CodeTargetCovered = "MM_TARGET_COVERED"
	// A visual check's baseline cannot be compared: the file is not a
	// PNG, or its size differs from the new screenshot's.
	CodeBaselineInvalid      = "MM_BASELINE_INVALID"
	CodeBaselineSizeMismatch = "MM_BASELINE_SIZE_MISMATCH"
	// A call arrived while the same client's mm_launch runs.
	CodeLaunchInProgress = "MM_LAUNCH_IN_PROGRESS"
	// Environment modes: a launch argument the session's mode
	// lacks (prod has no chain, fixtures, contracts or ports), and a mode
	// switch while the session runs.
	CodeNotInMode            = "MM_NOT_IN_MODE"
	CodeContextSwitchBlocked = "MM_CONTEXT_SWITCH_BLOCKED"
	// The host's watch build belongs to another client (the one that
	// started it).
	CodeWatchNotOwned = "MM_WATCH_NOT_OWNED"
	// Checkpoints (mm_checkpoint_save, mm_checkpoint_restore): no
	// checkpoint of that name, or one saved on another build or chain id.
	CodeCheckpointNotFound = "MM_CHECKPOINT_NOT_FOUND"
	CodeCheckpointMismatch = "MM_CHECKPOINT_MISMATCH"
	// mm_confirm's expect does not hold for the pending confirmation (the
	// request or what the wallet shows): nothing was approved or rejected.
	CodeExpectationFailed = "MM_EXPECTATION_FAILED"
	// mm_confirmation or mm_confirm found nothing to answer: no wallet
	// popup is open and no dapp request waits for an approval.
	CodeNoConfirmation = "MM_NO_CONFIRMATION"
	// Over HTTP a client named a file or folder outside the host's
	// workspace (mm_flow_run's path or handoff), or one whose symlinks
	// lead out of it.
	CodePathOutsideWorkspace = "MM_PATH_OUTSIDE_WORKSPACE"
	// mm_flow_resume of a handle another client's mm_flow_run made.
	CodeHandleNotOwned = "MM_HANDLE_NOT_OWNED"
)

// Error is a domain failure with an MM_* code (see package mmerr, which
// the Go client imports without the plugin protocol).
type Error = mmerr.Error

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error { return mmerr.Errorf(code, format, args...) }

// AsError finds an *Error in err's chain. When there is none it wraps err as
// an MM_INTERNAL_ERROR, so callers always get a code.
func AsError(err error) *Error { return mmerr.AsError(err) }
