package e2e

import (
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDoctor: on this set-up machine `mmcp doctor` exits 0; with port 12345
// taken it exits 1 and names the process that holds it (this test).
func TestDoctor(t *testing.T) {
	ws := walletWorkspace(t)
	r := mmcpCLI(t, ws, "doctor")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ready for mm_launch") {
		t.Fatalf("doctor on a set-up machine: exit %d\n%s\n%s", r.Code, r.Stdout, tail(r.Stderr, 10))
	}
	for _, want := range []string{"ok   chrome", "ok   anvil", "ok   port 12345", "ok   plugin chain", ws + ", built"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.Stdout)
		}
	}

	l, err := net.Listen("tcp", "127.0.0.1:12345")
	if err != nil {
		t.Fatalf("port 12345: %v", err)
	}
	defer l.Close()
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
	if r.Code != 1 || out.OK {
		t.Fatalf("doctor with 12345 taken: exit %d ok %v", r.Code, out.OK)
	}
	found := false
	for _, c := range out.Checks {
		if c.Name == "port 12345" {
			found = true
			if c.OK || !strings.Contains(c.Detail, "pid "+strconv.Itoa(os.Getpid())) || c.Fix == "" {
				t.Fatalf("port check %+v does not name this test (pid %d) as the holder", c, os.Getpid())
			}
		}
	}
	if !found {
		t.Fatal("no port 12345 check")
	}
}
