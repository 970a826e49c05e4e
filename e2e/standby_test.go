package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// standbyReady lists, in order, the sessions a host's log says it
// launched ahead and holds ready (--standby).
func standbyReady(h *Host) []string { return standbyReadyIn(h.Stderr.String()) }

// standbyReadyIn is standbyReady on a host's log.
func standbyReadyIn(log string) []string {
	var ids []string
	for _, m := range standbyReadyLine.FindAllStringSubmatch(log, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

var standbyReadyLine = regexp.MustCompile(`standby: session ready: sessionId=(\S+)`)

// waitStandby waits until the host's log says n sessions were launched
// ahead and held ready, and returns the nth.
func waitStandby(t testing.TB, h *Host, n int) string {
	t.Helper()
	if !eventually(90*time.Second, func() bool { return len(standbyReady(h)) >= n }) {
		t.Fatalf("no standby session %d ready; stderr:\n%s", n, tail(h.Stderr.String(), 30))
	}
	return standbyReady(h)[n-1]
}

// With --standby 1 a default mm_launch takes the session launched ahead
// (its id, unlocked, funded), and its records start then: no step
// record or session.json of a standby session exists before a launch
// takes it, the taker's goal is the one its session.json holds. Another
// session is launched behind it; a launch that names ports launches as
// before.
func TestStandbyLaunch(t *testing.T) {
	h, ws := walletHost(t, "--standby", "1")
	records := filepath.Join(ws, "test-artifacts", "llm-knowledge")
	first := waitStandby(t, h, 1)
	if _, err := os.Stat(filepath.Join(records, first)); err == nil {
		t.Fatalf("records of standby session %s before a launch took it", first)
	}
	env := must(t, h.Call("mm_launch", map[string]any{"goal": "standby taken"}))
	var res struct {
		SessionID     string `json:"sessionId"`
		Standby       bool   `json:"standby"`
		Prerequisites []struct{ Step string }
		State         state
	}
	env.Decode(t, &res)
	if res.SessionID != first || !res.Standby || len(res.Prerequisites) == 0 || res.Prerequisites[0].Step != "standby" {
		t.Fatalf("launch did not take standby session %s: %s", first, env.Result)
	}
	if !res.State.IsUnlocked || res.State.CurrentScreen != "home" {
		t.Fatalf("taken session's state: %+v", res.State)
	}
	var meta struct{ Goal string }
	raw, err := os.ReadFile(filepath.Join(records, first, "session.json"))
	if err == nil {
		err = json.Unmarshal(raw, &meta)
	}
	if err != nil || meta.Goal != "standby taken" {
		t.Fatalf("session.json of the taken session: %q, %v", meta.Goal, err)
	}
	st := must(t, h.Call("mm_get_state", map[string]any{}))
	if !strings.Contains(string(st.Result), `"25 ETH"`) {
		t.Fatalf("taken session's chain: %s", st.Result)
	}
	second := waitStandby(t, h, 2)
	if second == first {
		t.Fatal("no new standby session behind the taken one")
	}
	if _, err := os.Stat(filepath.Join(records, second)); err == nil {
		t.Fatalf("records of standby session %s before a launch took it", second)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
	plain := launchFree(t, h, map[string]any{})
	if plain["standby"] == true || plain["sessionId"] == second {
		t.Fatalf("a launch naming ports took the standby session: %v", plain["sessionId"])
	}
}

// A standby session never makes a launch fail with the session limit:
// with --max-sessions 1 a launch that does not match it takes its slot;
// once that session is cleaned up, another is launched ahead and the
// next default launch takes it.
func TestStandbyGivesWay(t *testing.T) {
	h, _ := walletHost(t, "--standby", "1", "--max-sessions", "1")
	waitStandby(t, h, 1)
	res := launchFree(t, h, map[string]any{"stateMode": "default"})
	if res["standby"] == true {
		t.Fatal("a launch naming ports took the standby session")
	}
	if !strings.Contains(h.Stderr.String(), "gives its slot to a launch") {
		t.Fatalf("no standby session gave way; stderr:\n%s", tail(h.Stderr.String(), 20))
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
	next := waitStandby(t, h, 2)
	var taken struct {
		SessionID string `json:"sessionId"`
	}
	must(t, h.Call("mm_launch", map[string]any{})).Decode(t, &taken)
	if taken.SessionID != next {
		t.Fatalf("took %s, want the standby session %s", taken.SessionID, next)
	}
}

// No Chrome, Anvil or plugin process is left once a host exits, or is
// killed, while its standby session is still launching (a wallet that
// never settles holds the launch at its first screen).
func TestStandbyLeavesNothing(t *testing.T) {
	ext := filepath.Join(repoRoot(), "e2e", "testdata", "never-settles")
	for _, how := range []string{"exit", "kill"} {
		t.Run(how, func(t *testing.T) {
			h := startHost(t, HostOptions{Repo: walletWorkspace(t), Args: []string{"--headless", "--standby", "1", "--extension", ext}})
			pid := h.Cmd.Process.Pid
			var procs []int
			if !eventually(60*time.Second, func() bool {
				procs = descendants(pid)
				return len(pidsMatching("--load-extension="+ext)) > 0 && len(cmdlineHas(procs, "anvil")) > 0
			}) {
				t.Fatalf("the standby launch did not reach Chrome and Anvil; stderr:\n%s", tail(h.Stderr.String(), 20))
			}
			if len(standbyReady(h)) > 0 {
				t.Fatal("the never-settling standby session is ready")
			}
			if how == "exit" {
				h.Close()
			} else {
				_ = h.Cmd.Process.Signal(syscall.SIGKILL)
				waitExit(t, h.Cmd, 20*time.Second)
			}
			if !eventually(20*time.Second, func() bool {
				return len(alive(procs)) == 0 && len(pidsMatching("--load-extension="+ext)) == 0
			}) {
				t.Fatalf("left behind after the host's %s: %v (Chrome %v)", how, alive(procs), pidsMatching("--load-extension="+ext))
			}
		})
	}
}

// cmdlineHas lists the pids of ps whose command line contains s.
func cmdlineHas(ps []int, s string) []int {
	var out []int
	for _, p := range ps {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, p)
		}
	}
	return out
}

// `mmcp test --standby 1 --parallel 1`: every flow that asks for the
// default launch runs in a session launched ahead (the next one during
// the previous flow's steps), none is launched behind the last flow,
// and the suite passes as without.
func TestFlowSuiteStandby(t *testing.T) {
	ws := walletWorkspace(t)
	srv := flowDappServer(t)
	js := filepath.Join(t.TempDir(), "out.json")
	r := mmcpRun(t, []string{"FLOW_DAPP_URL=" + srv.URL}, "--repo", ws, "--headless", "--log-level", "info", "--standby", "1",
		"test", "--parallel", "1", "--grep", "home|settings|counter", "--json", js, flowSuiteDir())
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 30))
	}
	var sum struct {
		Flows []struct{ Name, SessionID string }
	}
	raw, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(raw, &sum)
	}
	if err != nil || len(sum.Flows) != 4 {
		t.Fatalf("summary: %v %s", err, raw)
	}
	ahead := map[string]bool{}
	for _, m := range standbyReadyLine.FindAllStringSubmatch(r.Stderr, -1) {
		ahead[m[1]] = true
	}
	for _, f := range sum.Flows {
		if !ahead[f.SessionID] {
			t.Errorf("flow %q ran in session %s, not one launched ahead %v", f.Name, f.SessionID, ahead)
		}
	}
	// None is launched behind the last flow, for nothing.
	if n := strings.Count(r.Stderr, "standby: launching a session ahead"); n != len(sum.Flows) {
		t.Errorf("%d sessions launched ahead for %d flows", n, len(sum.Flows))
	}
}

// With --standby-checkpoint A the host keeps a fork of checkpoint A
// launched ahead (once A is saved: before, the launch ahead fails and is
// logged): mm_launch {fromCheckpoint: A} takes it at once, and a fork of
// A launched ahead before A was saved again is dropped, the launch
// forking A as saved now.
func TestStandbyCheckpoint(t *testing.T) {
	h, _ := walletHost(t, "--standby-checkpoint", "A")
	if !eventually(60*time.Second, func() bool { return strings.Contains(h.Stderr.String(), "standby: launching a session ahead failed") }) {
		t.Fatalf("no failed launch ahead of the unsaved checkpoint; stderr:\n%s", tail(h.Stderr.String(), 20))
	}
	orig := launchFree(t, h, map[string]any{"stateMode": "default"})
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"}))
	must(t, h.Call("mm_cleanup", map[string]any{}))
	ahead := waitStandby(t, h, 1)
	var v struct {
		forkView
		Standby bool `json:"standby"`
	}
	must(t, h.Call("mm_launch", map[string]any{"fromCheckpoint": "A"})).Decode(t, &v)
	if v.SessionID != ahead || !v.Standby || v.FromCheckpoint.Name != "A" || v.FromCheckpoint.SessionID != orig["sessionId"] {
		t.Fatalf("fork of A did not take the one launched ahead %s: %+v", ahead, v)
	}
	next := waitStandby(t, h, 2) // forked from A as the first session saved it
	must(t, h.Call("mm_checkpoint_save", map[string]any{"name": "A"}))
	must(t, h.Call("mm_cleanup", map[string]any{}))
	var again struct {
		forkView
		Standby bool `json:"standby"`
	}
	must(t, h.Call("mm_launch", map[string]any{"fromCheckpoint": "A"})).Decode(t, &again)
	if again.SessionID == next || again.Standby || again.FromCheckpoint.SessionID != v.SessionID {
		t.Fatalf("fork of A saved again took the stale fork launched ahead %s: %+v", next, again)
	}
	if !strings.Contains(h.Stderr.String(), "saved again since") {
		t.Fatal("the stale fork launched ahead was not dropped")
	}
}

// Over HTTP a standby session is owned by nobody until taken: no client
// names it (MM_SESSION_NOT_FOUND), "the only session" finds none; the
// client whose default launch takes it owns it, and another client
// cannot name it.
func TestStandbyOwnedByNobody(t *testing.T) {
	ws := walletWorkspace(t)
	t.Setenv("MMCP_STANDBY", "1")
	p := startServe(t, ws)
	if !eventually(90*time.Second, func() bool { return len(standbyReadyIn(p.Stderr.String())) > 0 }) {
		t.Fatalf("no standby session ready; stderr:\n%s", tail(p.Stderr.String(), 30))
	}
	id := standbyReadyIn(p.Stderr.String())[0]
	wantCode(t, envelopeOf(t, mmcpCLI(t, ws, "call", "--session", id, "mm_get_state")), sdk.CodeSessionNotFound)
	wantCode(t, envelopeOf(t, mmcpCLI(t, ws, "call", "--session", "*", "mm_get_state")), sdk.CodeNoActiveSession)
	a := p.connectAs(t, "agent-a")
	env, err := a.CallEnvelope(context.Background(), "mm_launch", map[string]any{})
	var res struct {
		SessionID string `json:"sessionId"`
		Standby   bool   `json:"standby"`
	}
	if err == nil {
		err = env.Decode(&res)
	}
	if err != nil || res.SessionID != id || !res.Standby {
		t.Fatalf("agent-a's launch: %+v, %v; want standby session %s", res, err, id)
	}
	wantCode(t, envelopeOf(t, mmcpCLI(t, ws, "call", "--session", id, "mm_get_state")), sdk.CodeSessionNotFound)
	if _, err := a.CallEnvelope(context.Background(), "mm_cleanup", map[string]any{}); err != nil {
		t.Fatal(err)
	}
}

// A command that serves no calls (mmcp plugins) launches nothing ahead,
// whatever --standby says.
func TestStandbyNotForListing(t *testing.T) {
	ws := walletWorkspace(t)
	r := mmcpCLI(t, ws, "--standby", "1", "--log-level", "info", "plugins")
	if r.Code != 0 || strings.Contains(r.Stderr, "standby: launching") {
		t.Fatalf("mmcp plugins with --standby 1: exit %d\n%s", r.Code, tail(r.Stderr, 20))
	}
}
