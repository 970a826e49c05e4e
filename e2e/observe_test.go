package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// togglePage serves a page with a toggle button on top, which adds and
// removes an element with the testid "shown", above 800 rows of about 15
// accessibility nodes each (more than 10,000 nodes).
func togglePage(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><body><h1>Toggle</h1>
<button data-testid="toggle" onclick="const s = document.querySelector('[data-testid=shown]'); if (s) { s.remove() } else { const n = document.createElement('span'); n.dataset.testid = 'shown'; n.textContent = 'Shown'; this.after(n) }">Toggle</button>
<main></main>
<script>
let rows = '';
for (let i = 0; i < 800; i++) {
  rows += '<section><h2>Row ' + i + '</h2><p>text ' + i + ' <b>bold</b></p><a href="#r' + i + '" data-testid="link-' + i + '">link ' + i + '</a><label>field ' + i + ' <input></label><button>b' + i + '</button><select aria-label="pick ' + i + '"><option>one</option><option>two</option></select></section>';
}
document.querySelector('main').innerHTML = rows;
</script></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// lastRecordOf is the session's last step record of tool, once every
// record so far is written.
func lastRecordOf(t *testing.T, h *Host, ws, sid, tool string) stepRecord {
	t.Helper()
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // waits for the records
	recs := records(t, ws, sid)
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Tool.Name == tool {
			return recs[i]
		}
	}
	t.Fatalf("no record of %s", tool)
	return stepRecord{}
}

// hasTestID says whether a record's observation lists the testid.
func hasTestID(r stepRecord, id string) bool {
	for _, it := range r.Observation.TestIDs {
		if it["testId"] == id {
			return true
		}
	}
	return false
}

// TestObserveAfterAnswer: on a page of more than 10,000 nodes, two
// single clicks in a row each answer before their observation is taken,
// yet each step record holds the full observation of the state right after
// its own click (the first sees the element it added, the second sees it
// gone), read back through the knowledge store.
func TestObserveAfterAnswer(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": togglePage(t)}))
	must(t, h.Call("mm_click", map[string]any{"testId": "toggle"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "toggle"}))

	// The knowledge store (the next call on the session) has both clicks.
	var last struct {
		Steps []struct{ Tool, Screen string }
	}
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 2})).Decode(t, &last)
	if len(last.Steps) != 2 || last.Steps[0].Tool != "mm_click" || last.Steps[1].Tool != "mm_click" {
		t.Fatalf("knowledge_last: %+v", last.Steps)
	}
	var clicks []stepRecord
	for _, r := range records(t, ws, sid) {
		if r.Tool.Name == "mm_click" {
			clicks = append(clicks, r)
		}
	}
	if len(clicks) != 2 {
		t.Fatalf("%d click records, want 2", len(clicks))
	}
	for i, r := range clicks {
		if len(r.Observation.TestIDs) == 0 || len(r.Observation.A11y.Nodes) == 0 || r.Observation.State["currentUrl"] == nil {
			t.Fatalf("click %d: not a full observation: %+v", i+1, r.Observation)
		}
	}
	if !hasTestID(clicks[0], "shown") {
		t.Fatalf("the first click's record does not show the element it added: %v", clicks[0].Observation.TestIDs)
	}
	if hasTestID(clicks[1], "shown") {
		t.Fatal("the second click's record still shows the element it removed")
	}
}

// TestSnapshotRecordOnADapp: on a dapp page a snapshot reads its record's
// state beside its walk (session.stateAhead); the record still holds the
// page's URL and load state, the wallet's own fields as mm_get_state gives
// them (read from the wallet's home tab), and the snapshot's nodes (the
// record keeps the first ones).
func TestSnapshotRecordOnADapp(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	url := togglePage(t)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": url}))
	var snap struct{ Nodes []map[string]any }
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)
	var got struct{ State map[string]any }
	must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &got)
	rec := lastRecordOf(t, h, ws, sid, "mm_accessibility_snapshot")
	st := rec.Observation.State
	if st["currentUrl"] != url || st["isLoaded"] != true || st["currentScreen"] != "unknown" {
		t.Fatalf("the record's page fields: %v; want the dapp's URL, loaded, screen unknown", st)
	}
	for _, k := range []string{"isUnlocked", "accountAddress", "chainId", "networkName"} {
		if st[k] == nil || st[k] != got.State[k] {
			t.Errorf("the record's %s is %v, mm_get_state's %v", k, st[k], got.State[k])
		}
	}
	nodes := rec.Observation.A11y.Nodes
	if len(nodes) == 0 || len(snap.Nodes) == 0 || nodes[0]["name"] != snap.Nodes[0]["name"] {
		t.Fatalf("the record's nodes do not start as the snapshot's: %d nodes, %d answered", len(nodes), len(snap.Nodes))
	}
}

// TestScreenshotRecordOfAPageThatChanges: a screenshot's record reads its
// state as the screenshot starts, beside the capture. When the page changes
// meanwhile (here a full-page capture resizes the view, and the page then
// changes its URL and adds an element at its top), the record shows the
// page after the
// change, its state and its walk alike, never the state read before with
// the walk after.
func TestScreenshotRecordOfAPageThatChanges(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><body style="height:3000px"><h1>Resize</h1>
<script>
addEventListener('resize', () => {
  if (document.querySelector('[data-testid=resized]')) return;
  history.replaceState(null, '', '#resized');
  const n = document.createElement('p'); n.dataset.testid = 'resized'; n.textContent = 'Resized'; document.body.prepend(n);
});
</script></body></html>`)
	}))
	t.Cleanup(srv.Close)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL + "/"}))
	must(t, h.Call("mm_screenshot", map[string]any{"name": "resize", "fullPage": true}))
	st := getState(t, h)
	if !strings.HasSuffix(st.CurrentURL, "#resized") {
		t.Fatalf("the full-page capture did not resize the page (URL %s): the test needs the change", st.CurrentURL)
	}
	shot := lastRecordOf(t, h, ws, sid, "mm_screenshot")
	url, _ := shot.Observation.State["currentUrl"].(string)
	if hasTestID(shot, "resized") != strings.HasSuffix(url, "#resized") {
		t.Fatalf("the record pairs URL %s with testids %v: its state and walk saw different pages", url, shot.Observation.TestIDs)
	}
}

// TestReadOnlyRecordsOfTheWallet: the records of the read-only calls that
// read their state beside the call (a screenshot, mm_list_testids,
// mm_get_text, a rootSelector snapshot, mm_get_state itself) hold the
// wallet's state as mm_get_state gives it: its screen, lock state,
// account, balance and URL.
func TestReadOnlyRecordsOfTheWallet(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	want := getState(t, h)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"mm_list_testids", map[string]any{}},
		{"mm_get_text", map[string]any{"testId": "eth-overview__primary-currency"}},
		{"mm_accessibility_snapshot", map[string]any{"rootSelector": ".overview"}},
		{"mm_screenshot", map[string]any{"name": "home"}},
		{"mm_get_state", map[string]any{}},
	}
	for _, c := range calls {
		must(t, h.Call(c.tool, c.args))
		st := lastRecordOf(t, h, ws, sid, c.tool).Observation.State
		acct, _ := st["accountAddress"].(string)
		if st["currentScreen"] != "home" || st["isUnlocked"] != true || !strings.EqualFold(acct, account0) ||
			st["balance"] != "25 ETH" || st["currentUrl"] != want.CurrentURL {
			t.Errorf("%s's record: state %s; want the wallet's home as mm_get_state gives it (%s)", c.tool, jsonOf(st), jsonOf(want))
		}
	}
}

// TestNavigateRecordOfTheWallet: the record of a navigation to the
// wallet's home, whose app state is read as the document loads, or to a
// dapp, whose wallet fields are read from the home tab as it starts, and
// the record of a snapshot right after it, which may take that read, hold
// the balance the chain has when the navigation starts, not an earlier one.
func TestNavigateRecordOfTheWallet(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	url := chainURL(t, h)
	dapp := testDappServer(t).URL + "/"
	for _, c := range []struct {
		wei, want string
		nav       map[string]any
		screen    string
	}{
		{"0x6124fee993bc0000", "7 ETH", map[string]any{"screen": "home"}, "home"},
		{"0x7ce66c50e2840000", "9 ETH", map[string]any{"screen": "url", "url": dapp}, "unknown"},
		{"0x8ac7230489e80000", "10 ETH", map[string]any{"screen": "home"}, "home"},
	} {
		var ignored any
		ethRPC(t, url, "anvil_setBalance", &ignored, account0, c.wei)
		must(t, h.Call("mm_navigate", c.nav))
		must(t, h.Call("mm_accessibility_snapshot", map[string]any{}))
		for _, tool := range []string{"mm_navigate", "mm_accessibility_snapshot"} {
			st := lastRecordOf(t, h, ws, sid, tool).Observation.State
			acct, _ := st["accountAddress"].(string)
			if st["currentScreen"] != c.screen || st["isUnlocked"] != true || !strings.EqualFold(acct, account0) || st["balance"] != c.want {
				t.Errorf("%s's record after %v: state %s; want screen %s with %s", tool, c.nav, jsonOf(st), c.screen, c.want)
			}
		}
	}
}

// TestClickRecordAfterAScreenshot: a viewport screenshot that follows a
// click by ref at once runs before the click's record reads the page (the
// capture does not wait for the record's walk), yet the click's record is
// written in full and shows the page as the click left it: the element it
// added, and the clicked element under the ref the click named; the
// second click's record shows the element gone. The screenshots' records
// follow, in call order.
func TestClickRecordAfterAScreenshot(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": togglePage(t)}))
	var snap struct {
		Nodes []struct{ Ref, Role, Name string }
	}
	must(t, h.Call("mm_accessibility_snapshot", map[string]any{})).Decode(t, &snap)
	ref := ""
	for _, n := range snap.Nodes {
		if n.Role == "button" && n.Name == "Toggle" {
			ref = n.Ref
		}
	}
	if ref == "" {
		t.Fatal("no Toggle button in the snapshot")
	}
	for range 2 {
		must(t, h.Call("mm_click", map[string]any{"a11yRef": ref}))
		must(t, h.Call("mm_screenshot", map[string]any{"name": "after-click", "fullPage": false, "includeBase64": true}))
	}
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // waits for the records
	var tools []string
	var clicks []stepRecord
	for _, r := range records(t, ws, sid) {
		tools = append(tools, r.Tool.Name)
		if r.Tool.Name == "mm_click" {
			clicks = append(clicks, r)
		}
	}
	if got := strings.Join(tools, " "); !strings.HasSuffix(got, "mm_click mm_screenshot mm_click mm_screenshot") {
		t.Fatalf("records in order %s", got)
	}
	for i, r := range clicks {
		if len(r.Observation.TestIDs) == 0 || len(r.Observation.A11y.Nodes) == 0 || r.Observation.State["currentUrl"] == nil {
			t.Fatalf("click %d: not a full observation (%d testids, %d nodes)", i+1, len(r.Observation.TestIDs), len(r.Observation.A11y.Nodes))
		}
		marked := false
		for _, n := range r.Observation.A11y.Nodes {
			if n["ref"] == ref {
				marked = n["role"] == "button" && n["name"] == "Toggle"
			}
		}
		if !marked {
			t.Fatalf("click %d: the record does not name the clicked button %s", i+1, ref)
		}
	}
	if !hasTestID(clicks[0], "shown") || hasTestID(clicks[1], "shown") {
		t.Fatalf("the click records do not show the page as each click left it: %v / %v", hasTestID(clicks[0], "shown"), hasTestID(clicks[1], "shown"))
	}
}

// TestLockRecordAfterAScreenshot: a click whose effect lands in the
// wallet's background (Lock), followed at once by a viewport screenshot:
// the click's record, made after the capture (and taking the state the
// screenshot read when the page still holds for it), shows the wallet as
// the click left it, locked on its unlock screen, its state and its walk
// agreeing; the screenshot's record shows the same.
func TestLockRecordAfterAScreenshot(t *testing.T) {
	h, ws := walletHost(t)
	sid := launch(t, h, map[string]any{"stateMode": "default"})["sessionId"].(string)
	must(t, h.Call("mm_click", map[string]any{"testId": "global-menu-lock"}))
	must(t, h.Call("mm_screenshot", map[string]any{"name": "locked", "fullPage": false, "includeBase64": true}))
	must(t, h.Call("mm_knowledge_last", map[string]any{"n": 1})) // waits for the records
	var got []stepRecord
	for _, r := range records(t, ws, sid) {
		if r.Tool.Name == "mm_click" || r.Tool.Name == "mm_screenshot" {
			got = append(got, r)
		}
	}
	if len(got) != 2 || got[0].Tool.Name != "mm_click" {
		t.Fatalf("records %+v, want the click's then the screenshot's", got)
	}
	for _, r := range got {
		st := r.Observation.State
		if st["isUnlocked"] != false || st["currentScreen"] != "unlock" || !hasTestID(r, "unlock-password") {
			t.Fatalf("%s's record: unlocked %v on %v (unlock-password listed: %v), want the locked wallet on its unlock screen",
				r.Tool.Name, st["isUnlocked"], st["currentScreen"], hasTestID(r, "unlock-password"))
		}
	}
}
