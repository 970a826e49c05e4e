package session

import (
	"context"
	"errors"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/sdk"
)

// The workspace's watch build (the build plugin's buildWatch capability)
// and the in-place reload of a session's extension: edit,
// mm_build_watch_wait_ready, look again, in the same session. A host runs
// one watch build, and it belongs to the owner (tools.Owner: over HTTP a
// client) that started it until that owner stops it: another owner that
// starts, waits on or stops it answers MM_WATCH_NOT_OWNED.

// StartWatch starts the watch build if it is not running and answers its
// state at once.
func (m *Manager) StartWatch(ctx context.Context) (sdk.WatchStatus, error) {
	w, release, err := m.watcher(ctx, "build_watch_start", true)
	if err != nil {
		return sdk.WatchStatus{}, err
	}
	res, err := w.StartWatch(ctx, sdk.StartWatchRequest{})
	if err != nil {
		release()
	}
	return res.Status, err
}

// StopWatch stops the watch build (its whole process group); the owner's
// session keeps running on the last build.
func (m *Manager) StopWatch(ctx context.Context) (sdk.WatchStatus, error) {
	w, release, err := m.watcher(ctx, "build_watch_stop", false)
	if err != nil {
		return sdk.WatchStatus{}, err
	}
	res, err := w.StopWatch(ctx, sdk.StopWatchRequest{})
	if err == nil {
		release()
	}
	return res.Status, err
}

// WaitReady waits for the watch build's next finished rebuild, then, when
// the call's session runs on that build (or reload says so), reloads its
// extension in place (Reload). It answers the rebuild and, after a reload,
// its outcome; progress gets the watcher's output.
func (m *Manager) WaitReady(ctx context.Context, timeoutMs int64, reload *bool, progress func(float64, float64, string)) (map[string]any, error) {
	w, _, err := m.watcher(ctx, "build_watch_wait_ready", false)
	if err != nil {
		return nil, err
	}
	ready, err := w.WaitReady(ctx, sdk.WaitReadyRequest{TimeoutMs: timeoutMs}, plugins.Events{OnProgress: progress, Logger: m.log.Named("watch")})
	if err != nil {
		return nil, err
	}
	r := ready.Rebuild
	out := map[string]any{"rebuild": r, "buildMs": r.DurationMs, "buildId": r.BuildID, "reloaded": false}
	s, _ := m.Active(ctx)
	where, err := m.plugins.Builder().ExtensionPath(ctx, sdk.ExtensionPathRequest{}) // where the watcher builds
	if err != nil {
		return nil, err
	}
	again := RunsOn(s, where.Path)
	if reload != nil {
		again = *reload
	}
	if !again {
		return out, nil
	}
	if s == nil {
		return nil, sdk.Errorf(sdk.CodeNoActiveSession, "the rebuild finished, and there is no session to reload: call %s", m.tool("launch")).
			WithDetails(map[string]any{"rebuild": r})
	}
	progress(0, 0, "reloading the extension")
	res, err := m.Reload(ctx, s, r.BuildID, wallet.ReloadPages)
	if err != nil {
		return nil, withRebuild(err, r)
	}
	out["reloaded"], out["reload"], out["reloadMs"], out["screen"], out["consoleErrors"] = true, res, res.ReloadMs, res.Screen, res.ConsoleErrors
	return out, nil
}

// Reloaded is mm_reload_extension's answer: the reload and the build the
// session now runs.
type Reloaded struct {
	wallet.ReloadResult
	BuildID string `json:"buildId"`
}

// ReloadExtension reloads the call's session's extension in place after
// its files changed (Reload), hashing the extension for the build id.
func (m *Manager) ReloadExtension(ctx context.Context) (Reloaded, error) {
	return onActive(ctx, m, func(s *Session) (Reloaded, error) {
		res, err := m.Reload(ctx, s, "", wallet.ReloadWhole)
		if err != nil {
			return Reloaded{}, err
		}
		return Reloaded{res, s.BuildID()}, nil
	})
}

// watcher is the watch build for a call of tool (its base name): it needs
// the workspace, and a watch build another owner started answers
// MM_WATCH_NOT_OWNED. With claim, the call's owner owns it from now on;
// release gives it up (a failed start, a stop).
func (m *Manager) watcher(ctx context.Context, tool string, claim bool) (w sdk.Watcher, release func(), err error) {
	if m.cfg.Repo == "" {
		return nil, nil, sdk.Errorf(sdk.CodeNoWorkspace, "%s watches the workspace's build, and this host has no workspace: start mmcp with --repo /path/to/metamask-extension (or set MMCP_REPO)", m.tool(tool))
	}
	owner := tools.Owner(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.watchOwner != "" && m.watchOwner != owner {
		return nil, nil, sdk.Errorf(sdk.CodeWatchNotOwned, "%s: the workspace's watch build belongs to another client of this host, which started it: only that client can wait on it or stop it; run your own watch build in a host of your own (mmcp serve --repo ...)", m.tool(tool))
	}
	claimed := false
	if claim && m.watchOwner == "" {
		m.watchOwner, claimed = owner, true
	}
	release = func() {
		if claim && !claimed {
			return // a start that found the owner's watch build running
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.watchOwner == owner {
			m.watchOwner = ""
		}
	}
	return m.plugins.Watcher(), release, nil
}

// withRebuild adds the finished rebuild to a reload's error.
func withRebuild(err error, r sdk.Rebuild) error {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e.WithDetails(map[string]any{"rebuild": r, "buildMs": r.DurationMs})
	}
	return err
}
