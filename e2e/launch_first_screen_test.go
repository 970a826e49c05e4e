package e2e

import (
	"encoding/json"
	"testing"
)

// TestLaunchFirstScreenFromTheDOM: a wallet whose app state answers only
// once its background has initialized, seconds after its screen shows (a
// real MetaMask build's getCleanAppState; TestWalletSettings.appStateAfterMs
// here), is recognized on its unlock screen as soon as the screen shows:
// the launch reads the first screen from the DOM. Before, each read of the
// loading wallet waited for the app state, up to its 1 s bound, before the
// screen counted.
func TestLaunchFirstScreenFromTheDOM(t *testing.T) {
	h, _ := walletHost(t)
	res := launchBehaving(t, h, map[string]any{"appStateAfterMs": 8000})
	if st := launchState(t, res); st.CurrentScreen != "home" || !st.IsUnlocked {
		t.Fatalf("launch state %+v", st)
	}
	var split map[string]int64
	if err := json.Unmarshal([]byte(jsonOf(res["splitMs"])), &split); err != nil {
		t.Fatal(err)
	}
	// The unlock screen shows within tens of ms of the home page's load;
	// a read that waits for the app state takes its whole 1 s bound.
	if ms, ok := split["extension"]; !ok || ms >= 1000 {
		t.Fatalf("first screen after %d ms (split %v): the launch waited for the wallet's app state", ms, split)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
