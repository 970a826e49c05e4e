package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// childrenOf lists the processes whose parent is ppid and whose command
// line contains needle.
func childrenOf(ppid int, needle string) []int {
	matching := map[int]bool{}
	for _, pid := range pidsMatching(needle) {
		matching[pid] = true
	}
	var out []int
	for _, p := range testutil.LiveProcs() {
		if p.PPid == ppid && matching[p.Pid] {
			out = append(out, p.Pid)
		}
	}
	return out
}

func killAll(t *testing.T, what string, pids []int) {
	t.Helper()
	if len(pids) == 0 {
		t.Fatalf("no %s process to kill", what)
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// healthView is mm_get_state's answer with its health block.
type healthView struct {
	State  state
	Health struct {
		Browser, Chain, Fixture struct{ Status, Reason string }
		Plugins                 map[string]struct{ Status, Reason string }
	}
}

// TestSessionHealth kills each part of a running session: the next call
// that needs it answers its precise code within 2 s, mm_get_state shows it
// down (and reports no balance from a dead chain), and mm_launch starts a
// fresh session without mm_cleanup.
func TestSessionHealth(t *testing.T) {
	for _, tc := range []struct {
		name string
		kill func(t *testing.T, h *Host, ws string, port int)
		// check waits for the fault to show, within 2 s of the kill.
		part, code string
	}{
		{"chrome", func(t *testing.T, h *Host, ws string, _ int) { killAll(t, "chrome", chromeFor(ws)) }, "browser", "MM_BROWSER_CLOSED"},
		{"wallet page crash", func(t *testing.T, h *Host, ws string, _ int) {
			// The renderer of the active wallet page dies ("Aw, Snap!").
			page := pageAt(t, bareCDP(t, ws), "chrome-extension://")
			// Page.crash never answers: give Chrome half a second to report.
			_ = proto.PageCrash{}.Call(page.Timeout(500 * time.Millisecond))
		}, "browser", "MM_BROWSER_CLOSED"},
		{"chain plugin", func(t *testing.T, h *Host, _ string, _ int) {
			killAll(t, "chain plugin", childrenOf(h.Cmd.Process.Pid, "mmcp-plugin-chain"))
		}, "chain", "MM_CHAIN_DOWN"},
		{"anvil", func(t *testing.T, _ *Host, _ string, port int) { killAll(t, "anvil", anvilOn(port)) }, "chain", "MM_CHAIN_DOWN"},
		{"fixture plugin", func(t *testing.T, h *Host, _ string, _ int) {
			killAll(t, "fixture plugin", childrenOf(h.Cmd.Process.Pid, "mmcp-plugin-fixture"))
		}, "fixture", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ws := walletHost(t)
			port, fport := testutil.FreePort(t), testutil.FreePort(t)
			args := map[string]any{"ports": map[string]any{"anvil": port, "fixtureServer": fport}}
			first := launchFree(t, h, args)
			tc.kill(t, h, ws, port)
			killed := time.Now()

			var view healthView
			var env Envelope
			shown := eventually(2*time.Second, func() bool {
				env = h.Call("mm_get_state", map[string]any{})
				if tc.part == "browser" {
					return !env.OK && env.Error.Code == tc.code
				}
				view = healthView{}
				env.Decode(t, &view)
				switch tc.part {
				case "chain":
					return view.Health.Chain.Status == "down"
				default:
					return view.Health.Fixture.Status == "down"
				}
			})
			if took := time.Since(killed); !shown || took > 2*time.Second {
				t.Fatalf("%s not reported down within 2 s (%s): %s %+v\nhost log:\n%s", tc.part, took, env.Result, env.Error, tail(h.Stderr.String(), 15))
			}
			t.Logf("%s reported down %d ms after the kill", tc.part, time.Since(killed).Milliseconds())
			switch tc.part {
			case "browser":
				if !strings.Contains(env.Error.Message, "mm_launch") {
					t.Fatalf("no way forward in %q", env.Error.Message)
				}
				wantCode(t, h.Call("mm_click", map[string]any{"testId": "eth-overview-send"}), tc.code)
			case "chain":
				if view.State.Balance != nil {
					t.Fatalf("balance %q reported from a dead chain", *view.State.Balance)
				}
				if view.Health.Chain.Reason == "" || view.Health.Browser.Status != "up" {
					t.Fatalf("health %+v", view.Health)
				}
				env = h.Call("mm_seed_contract", map[string]any{"contractName": "hst"})
				wantCode(t, env, tc.code)
				// The chain plugin's own tools answer the same code and
				// advice for the same fault.
				bal := h.Call("chain_set_balance", map[string]any{"address": "0x0000000000000000000000000000000000000001", "wei": "1"})
				wantCode(t, bal, tc.code)
				if !strings.Contains(bal.Error.Message, "mm_launch to start a fresh session") {
					t.Fatalf("chain_set_balance advice %q, want mm_seed_contract's %q", bal.Error.Message, env.Error.Message)
				}
			case "fixture":
				if view.Health.Chain.Status != "up" || view.Health.Fixture.Reason == "" {
					t.Fatalf("health %+v", view.Health)
				}
			}

			// mm_launch replaces the broken session without mm_cleanup.
			res := launchFree(t, h, args)
			if res["sessionId"] == first["sessionId"] || !slices.Contains(steps(res), "replace") {
				t.Fatalf("relaunch: session %v (was %v), steps %v", res["sessionId"], first["sessionId"], steps(res))
			}
			st := launchState(t, res)
			if st.CurrentScreen != "home" || st.Balance == nil || *st.Balance != "25 ETH" {
				t.Fatalf("relaunched state %+v", st)
			}
			var after healthView
			must(t, h.Call("mm_get_state", map[string]any{})).Decode(t, &after)
			if after.Health.Browser.Status != "up" || after.Health.Chain.Status != "up" || after.Health.Fixture.Status != "up" {
				t.Fatalf("health after relaunch %+v", after.Health)
			}
			must(t, h.Call("mm_cleanup", map[string]any{}))
			nothingLeft(t, ws, port, fport)
		})
	}
}

// TestLaunchNeverSettles: a wallet that stays on its loading spinner fails
// mm_launch with MM_LAUNCH_FAILED after the settle timeout (not the call's
// 20-minute deadline), with its console errors and a screenshot, and
// leaves nothing running. A call made meanwhile answers at once with
// MM_LAUNCH_IN_PROGRESS naming the step the launch is in and its bound,
// instead of waiting out the launch.
func TestLaunchNeverSettles(t *testing.T) {
	ws := walletWorkspace(t)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless", "--settle-timeout", "6s"}})
	port, fport := testutil.FreePort(t), testutil.FreePort(t)
	started := time.Now()
	launched := make(chan Envelope, 1)
	go func() {
		launched <- h.Call("mm_launch", map[string]any{"extensionPath": filepath.Join(repoRoot(), "e2e", "testdata", "never-settles"), "ports": map[string]any{"anvil": port, "fixtureServer": fport}})
	}()
	var during Envelope
	if !eventually(20*time.Second, func() bool {
		asked := time.Now()
		during = h.Call("mm_get_state", map[string]any{})
		if took := time.Since(asked); took > 2*time.Second {
			t.Fatalf("mm_get_state during the launch took %s: %+v", took, during.Error)
		}
		return during.Error != nil && strings.HasPrefix(fmt.Sprint(during.Error.Details["doing"]), "launch: unlock")
	}) {
		t.Fatalf("mm_get_state during the stuck launch: %+v", during.Error)
	}
	wantCode(t, during, "MM_LAUNCH_IN_PROGRESS")
	if !strings.Contains(during.Error.Message, "at most 12s") || during.Error.Details["tool"] != "mm_launch" {
		t.Fatalf("in progress: %q %v", during.Error.Message, during.Error.Details)
	}
	env := <-launched
	took := time.Since(started)
	wantCode(t, env, "MM_LAUNCH_FAILED")
	if took > 20*time.Second {
		t.Fatalf("launch failed after %s, want about the 6 s settle timeout", took)
	}
	d := env.Error.Details
	if d["step"] != "extension" || !strings.Contains(env.Error.Message, "did not reach a recognized screen within 6s") {
		t.Fatalf("error %q %v", env.Error.Message, d)
	}
	errs, _ := d["consoleErrors"].([]any)
	var joined []string
	for _, e := range errs {
		joined = append(joined, fmt.Sprint(e))
	}
	all := strings.Join(joined, "\n")
	if !strings.Contains(all, "background failed to load the wallet state") || !strings.Contains(all, "UI could not reach a working background") {
		t.Fatalf("console errors of the service worker and the page missing: %q", all)
	}
	shot, _ := d["screenshot"].(string)
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Fatalf("screenshot %q: %v", shot, err)
	}
	if u, _ := d["lastUrl"].(string); !strings.HasSuffix(u, "/home.html") {
		t.Fatalf("lastUrl %q", u)
	}
	wantCode(t, h.Call("mm_get_state", map[string]any{}), "MM_NO_ACTIVE_SESSION")
	if !eventually(10*time.Second, func() bool { return len(anvilOn(port)) == 0 && portFree(fport) }) {
		t.Fatal("the failed launch left Anvil or the fixture server running")
	}
}
