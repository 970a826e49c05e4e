package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/tools"
)

// watchTools are the watch build's lifecycle (the build plugin's
// buildWatch capability; one per host, owned by the client that started
// it) and the in-place reload of a session's extension: edit,
// mm_build_watch_wait_ready, look again, in the same session.
func (g *reg) watchTools() {
	add(g, "build_watch_start", tools.Tool{
		Description: "Start the workspace's watch build (yarn start:test; the build plugin's watchCommand setting) if it is not running, and answer at once with its state. Then call mm_build_watch_wait_ready after each edit.",
		Record:      true, NoBatch: true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		return g.Sessions.StartWatch(ctx)
	})
	add(g, "build_watch_wait_ready", tools.Tool{
		Description: "Wait for the watch build's next finished rebuild (the first build right after start), then, when a session runs on that build (or reload is true), reload the extension in place: same Chrome, chain, dapp tabs and session, unlocked again, back on the wallet screen it was on. Answers build ms, reload ms, the screen now shown and the new build's console errors. A broken build answers MM_BUILD_FAILED with the watcher's error; a broken wallet MM_RELOAD_FAILED with console errors and a screenshot.",
		Record:      true, NoBatch: true, Timeout: 35 * time.Minute,
	}, func(ctx context.Context, c *tools.Call, in struct {
		TimeoutMs int64
		Reload    *bool
	}) (any, error) {
		return g.Sessions.WaitReady(ctx, in.TimeoutMs, in.Reload, c.Progress)
	})
	add(g, "build_watch_stop", tools.Tool{
		Description: "Stop the watch build (its whole process group). The session keeps running on the last build.",
		Record:      true, NoBatch: true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		return g.Sessions.StopWatch(ctx)
	})
	add(g, "reload_extension", tools.Tool{
		Description: "Reload the unpacked extension in the running Chrome after its files changed: no new Chrome, chain or fixture; dapp tabs stay open; the wallet is unlocked again and reopened on the screen it was on (home otherwise). MM_RELOAD_FAILED with console errors and a screenshot when the new build breaks the wallet.",
		Record:      true, NoBatch: true, Timeout: 3 * time.Minute,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		return g.Sessions.ReloadExtension(ctx)
	})
}
