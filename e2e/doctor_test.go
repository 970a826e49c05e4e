package e2e

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDoctor: on this set-up machine `mmcp doctor` exits 0, also while
// other processes hold 8545 and 12345 (TestMain holds them, as a dapp
// developer's own Anvil and fixture server would): a held default port is
// a note naming its holder, since a default launch then runs on a free
// port.
func TestDoctor(t *testing.T) {
	ws := walletWorkspace(t)
	r := mmcpCLI(t, ws, "doctor")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ready for mm_launch") {
		t.Fatalf("doctor on a set-up machine: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 10))
	}
	for _, want := range []string{"ok   chrome", "ok   anvil", "port 12345", "port 8545", "ok   plugin chain", ws + ", built"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.Stdout)
		}
	}

	r = mmcpCLI(t, ws, "doctor", "--json")
	var out struct {
		OK     bool
		Checks []struct {
			Name, Detail, Fix string
			OK, Required      bool
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.Stdout)
	}
	if r.Code != 0 || !out.OK {
		t.Fatalf("doctor with 8545 and 12345 held by another process: exit %d ok %v\n%s", r.Code, out.OK, r.Stdout)
	}
	found := false
	for _, c := range out.Checks {
		if c.Name != "port 12345" {
			continue
		}
		found = true
		if c.OK || c.Required || !strings.Contains(c.Detail, "in use") || !strings.Contains(c.Detail, "free port") || c.Fix == "" {
			t.Fatalf("port check %+v: want a note that names the holder and says a launch uses a free port", c)
		}
		if foreignFixture.held && !strings.Contains(c.Detail, "pid "+strconv.Itoa(os.Getpid())) {
			t.Fatalf("port check %+v does not name this test (pid %d) as the holder", c, os.Getpid())
		}
	}
	if !found {
		t.Fatal("no port 12345 check")
	}
}
