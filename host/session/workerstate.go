package session

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/mmcp-dev/mmcp/sdk"
)

// workerStateJS reads the state a MetaMask test build keeps in its
// background instead of chrome.storage.local (its ReadOnlyNetworkStore
// holds the fixture it fetched and every later write, in memory), through
// the stateHooks its test builds leave reachable in the service worker:
// the data as the wallet last persisted it, its meta when the store kept
// one, and the meta of the state it loaded at start.
const workerStateJS = `(async () => {
  const h = globalThis.stateHooks;
  if (!h || typeof h.metamaskGetState !== 'function') return null;
  const s = await h.metamaskGetState();
  if (!s || !s.data || typeof s.data !== 'object') return null;
  const loaded = typeof h.getMostRecentPersistedState === 'function' ? h.getMostRecentPersistedState() : null;
  return { data: s.data, meta: s.meta || null, loadedMeta: (loaded && loaded.meta) || null };
})()`

// migrationDone matches the line MetaMask's migrator logs after each
// migration ("Migration 121 complete").
var migrationDone = regexp.MustCompile(`^Migration (\d+(?:\.\d+)?) complete$`)

// workerState reads session s's wallet state from its service worker
// (workerStateJS) in the fixture shape {data, meta}: meta.version is the
// version the data is at, which the in-memory store of MetaMask 11.16.7
// does not keep (it writes the meta under a name it never sets). Then it
// is the last migration the worker logged (its migrator runs the
// migrations above the loaded state's version as it starts, and logs
// each), or, when it logged none, the loaded state's version. Nil when the
// worker has no such hooks or cannot be reached.
func (m *Manager) workerState(ctx context.Context, s *Session) (json.RawMessage, error) {
	var got struct {
		Data       json.RawMessage `json:"data"`
		Meta       map[string]any  `json:"meta"`
		LoadedMeta map[string]any  `json:"loadedMeta"`
	}
	if err := s.wallet.EvalWorker(ctx, workerStateJS, &got); err != nil || isNull(got.Data) {
		if err != nil {
			m.log.Debug("no wallet state in the service worker", "error", err)
		}
		return nil, nil
	}
	meta := got.Meta
	if _, ok := meta["version"].(float64); !ok {
		lines, full, err := s.wallet.WorkerConsole(ctx)
		if err != nil {
			return nil, sdk.Errorf(sdk.CodeInternal, "reading the wallet's service worker console for its state's version: %v", err)
		}
		version, found := 0.0, false
		for _, l := range lines {
			if mm := migrationDone.FindStringSubmatch(l); mm != nil {
				version, _ = strconv.ParseFloat(mm[1], 64)
				found = true
			}
		}
		loaded, ok := got.LoadedMeta["version"].(float64)
		switch {
		case found:
		case full:
			return nil, sdk.Errorf(sdk.CodeInternal, "the wallet keeps its state in memory without its version, and its service worker's console no longer holds the migrations it ran: save the checkpoint earlier in the session (right after %s)", m.tool("launch"))
		case ok:
			version = loaded
		default:
			return nil, sdk.Errorf(sdk.CodeInternal, "the wallet keeps its state in memory without its version, and the state it loaded had none: this wallet cannot be checkpointed")
		}
		meta = map[string]any{}
		for k, v := range got.LoadedMeta {
			meta[k] = v
		}
		meta["version"] = version
	}
	return json.Marshal(map[string]any{"data": got.Data, "meta": meta})
}
