package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A dapp asks the wallet its chain and accounts as it loads, and shows
// what it learned a moment later. A snapshot taken right after the
// navigation shows the dapp once it has those answers (the wallet's test
// build answers them through its service worker, as MetaMask does), not
// the dapp half set up.
func TestSnapshotShowsTheDappsAnswers(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>start-up</title><h1>Starting</h1>
<script>
window.ethereum.request({ method: 'eth_chainId' })
  .then((c) => window.ethereum.request({ method: 'eth_accounts' }).then((a) => {
    document.querySelector('h1').textContent = 'Chain ' + c + ', ' + a.length + ' accounts';
  }));
</script>`))
	}))
	t.Cleanup(srv.Close)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
	var snap struct {
		Nodes []struct{ Role, Name string }
	}
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)
	var heading string
	for _, n := range snap.Nodes {
		if n.Role == "heading" {
			heading = n.Name
		}
	}
	if !strings.HasPrefix(heading, "Chain 0x") || !strings.HasSuffix(heading, " accounts") {
		t.Fatalf("the snapshot right after the navigation shows the heading %q; want the dapp's chain and accounts (%+v)", heading, snap.Nodes)
	}
}
