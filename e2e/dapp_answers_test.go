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

// A snapshot of a dapp that is still setting up waits for the dapp's
// answers, and its record takes a state read started as the snapshot
// started, not one asked of the wallet after that wait: the call after the
// snapshot would wait for it. No state read starts once the dapp's reads
// are answered (the host's trace log says when each starts), and the
// snapshot's record shows the dapp's page.
func TestSnapshotReadsItsStateBesideTheDappWait(t *testing.T) {
	h, ws := walletHost(t, "--log-level", "trace")
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	// The dapp asks its chain again as each answer comes, for 150 ms: far
	// longer than a state read is kept for a read-only call (readFresh).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>slow start-up</title><h1>Starting</h1>
<script>
const t0 = performance.now();
let n = 0;
const ask = () => window.ethereum.request({ method: 'eth_chainId' }).then(() => {
  n++;
  if (performance.now() - t0 < 150) return ask();
  document.querySelector('h1').textContent = 'Asked ' + n + ' times';
});
ask();
</script>`))
	}))
	t.Cleanup(srv.Close)
	from := len(h.Stderr.String())
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
	var snap struct {
		Nodes []struct{ Role, Name string }
	}
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)
	rec := lastRecordOf(t, h, ws, sid, "mm_accessibility_snapshot")
	logged := h.Stderr.String()[from:]
	answered := strings.Index(logged, "the dapp's reads are answered")
	if answered < 0 {
		t.Fatalf("the snapshot did not wait for the dapp's answers (%+v); log:\n%s", snap.Nodes, tail(logged, 30))
	}
	if strings.Count(logged[:answered], "reading the state") == 0 {
		t.Fatalf("no state read started before the dapp's reads were answered; log:\n%s", tail(logged, 30))
	}
	if n := strings.Count(logged[answered:], "reading the state"); n > 0 {
		t.Errorf("%d state reads started after the dapp's reads were answered; want none; log:\n%s", n, tail(logged, 30))
	}
	if got, _ := rec.Observation.State["currentUrl"].(string); got != srv.URL+"/" {
		t.Errorf("the snapshot's record shows %q; want the dapp's page %s/", got, srv.URL)
	}
}
