package builtin

import (
	"context"
	"errors"
	"time"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/sdk"
)

// watchTools are the watch build's lifecycle (the build plugin's
// buildWatch capability) and the in-place reload of a session's
// extension: edit, mm_build_watch_wait_ready, look again, in the same
// session.
func (g *reg) watchTools() {
	add(g, "build_watch_start", tools.Tool{
		Description: "Start the workspace's watch build (yarn start:test; the build plugin's watchCommand setting) if it is not running, and answer at once with its state. Then call mm_build_watch_wait_ready after each edit.",
		Record:      true, NoBatch: true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		if err := g.needRepo("build_watch_start"); err != nil {
			return nil, err
		}
		res, err := g.Plugins.Watcher().StartWatch(ctx, sdk.StartWatchRequest{})
		return res.Status, err
	})
	add(g, "build_watch_wait_ready", tools.Tool{
		Description: "Wait for the watch build's next finished rebuild (the first build right after start), then, when a session runs on that build (or reload is true), reload the extension in place: same Chrome, chain, dapp tabs and session, unlocked again, back on the wallet screen it was on. Answers build ms, reload ms, the screen now shown and the new build's console errors. A broken build answers MM_BUILD_FAILED with the watcher's error; a broken wallet MM_RELOAD_FAILED with console errors and a screenshot.",
		Record:      true, NoBatch: true, Timeout: 35 * time.Minute,
	}, func(ctx context.Context, c *tools.Call, in struct {
		TimeoutMs int64
		Reload    *bool
	}) (any, error) {
		if err := g.needRepo("build_watch_wait_ready"); err != nil {
			return nil, err
		}
		w := g.Plugins.Watcher()
		ready, err := w.WaitReady(ctx, sdk.WaitReadyRequest{TimeoutMs: in.TimeoutMs}, plugins.Events{OnProgress: c.Progress, Logger: g.Log.Named("watch")})
		if err != nil {
			return nil, err
		}
		r := ready.Rebuild
		out := map[string]any{"rebuild": r, "buildMs": r.DurationMs, "buildId": r.BuildID, "reloaded": false}
		s, _ := g.Sessions.Active(ctx)
		where, err := g.Plugins.Builder().ExtensionPath(ctx, sdk.ExtensionPathRequest{}) // where the watcher builds
		if err != nil {
			return nil, err
		}
		reload := session.RunsOn(s, where.Path)
		if in.Reload != nil {
			reload = *in.Reload
		}
		if !reload {
			return out, nil
		}
		if s == nil {
			return nil, sdk.Errorf(sdk.CodeNoActiveSession, "the rebuild finished, and there is no session to reload: call %s", g.name("launch")).
				WithDetails(map[string]any{"rebuild": r})
		}
		c.Progress(0, 0, "reloading the extension")
		res, err := g.Sessions.Reload(ctx, s, r.BuildID)
		if err != nil {
			return nil, withRebuild(err, r)
		}
		out["reloaded"], out["reload"], out["reloadMs"], out["screen"], out["consoleErrors"] = true, res, res.ReloadMs, res.Screen, res.ConsoleErrors
		return out, nil
	})
	add(g, "build_watch_stop", tools.Tool{
		Description: "Stop the watch build (its whole process group). The session keeps running on the last build.",
		Record:      true, NoBatch: true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		if err := g.needRepo("build_watch_stop"); err != nil {
			return nil, err
		}
		res, err := g.Plugins.Watcher().StopWatch(ctx, sdk.StopWatchRequest{})
		return res.Status, err
	})
	add(g, "reload_extension", tools.Tool{
		Description: "Reload the unpacked extension in the running Chrome after its files changed: no new Chrome, chain or fixture; dapp tabs stay open; the wallet is unlocked again and reopened on the screen it was on (home otherwise). MM_RELOAD_FAILED with console errors and a screenshot when the new build breaks the wallet.",
		Record:      true, NoBatch: true, Timeout: 3 * time.Minute,
	}, inSession(g.Sessions.Active, func(ctx context.Context, _ *tools.Call, s *session.Session, _ struct{}) (any, error) {
		res, err := g.Sessions.Reload(ctx, s, "")
		if err != nil {
			return nil, err
		}
		return struct {
			wallet.ReloadResult
			BuildID string `json:"buildId"`
		}{res, s.BuildID()}, nil
	}))
}

// needRepo answers MM_NO_WORKSPACE for a tool that needs the workspace.
func (g *reg) needRepo(base string) error {
	if g.Repo != "" {
		return nil
	}
	return sdk.Errorf(sdk.CodeNoWorkspace, "%s watches the workspace's build, and this host has no workspace: start mmcp with --repo /path/to/metamask-extension (or set MMCP_REPO)", g.name(base))
}

// withRebuild adds the finished rebuild to a reload's error.
func withRebuild(err error, r sdk.Rebuild) error {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e.WithDetails(map[string]any{"rebuild": r, "buildMs": r.DurationMs})
	}
	return err
}
