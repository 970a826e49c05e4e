package host

import (
	"context"

	"github.com/mmcp-dev/mmcp/sdk"
)

// pluginStateSnapshot is a plugin's StateSnapshot capability, called
// through the plugin manager (a crashed plugin is relaunched on the next
// call). It replaces the browser profile's screen detection and state.
type pluginStateSnapshot struct{ h *Host }

// stateSnapshot is the StateSnapshot plugin's capability, or nil when no
// plugin provides one (the built-in MetaMask profile then reads state).
func (h *Host) stateSnapshot() sdk.StateSnapshotter {
	if h.plugins == nil || h.plugins.ByCapability(sdk.CapStateSnapshot) == nil {
		return nil
	}
	return pluginStateSnapshot{h}
}

func (p pluginStateSnapshot) use(ctx context.Context, fn func(sdk.StateSnapshotter) error) error {
	return p.h.plugins.Use(ctx, sdk.CapStateSnapshot, func(c *sdk.Client) error { return fn(c.StateSnapshot()) })
}

// Probe implements sdk.StateSnapshotter.
func (p pluginStateSnapshot) Probe(ctx context.Context) (out sdk.StateProbe, err error) {
	err = p.use(ctx, func(s sdk.StateSnapshotter) (e error) { out, e = s.Probe(ctx); return e })
	return out, err
}

// DetectScreen implements sdk.StateSnapshotter.
func (p pluginStateSnapshot) DetectScreen(ctx context.Context, page sdk.PageSnapshot) (out string, err error) {
	err = p.use(ctx, func(s sdk.StateSnapshotter) (e error) { out, e = s.DetectScreen(ctx, page); return e })
	return out, err
}

// State implements sdk.StateSnapshotter.
func (p pluginStateSnapshot) State(ctx context.Context, page sdk.PageSnapshot, o sdk.SnapshotOptions) (out sdk.WalletStatus, err error) {
	err = p.use(ctx, func(s sdk.StateSnapshotter) (e error) { out, e = s.State(ctx, page, o); return e })
	return out, err
}
