package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"syscall"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// startFakes starts a manager with the fake chain and fixture plugins.
func startFakes(t *testing.T) *Manager {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user plugins
	t.Setenv(pluginhost.EnvReattach, "")
	m := New(Config{ExeDir: installFakes(t, "fakechain", "fakefixture")}, nil)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	for _, p := range m.Plugins() {
		if p.Err != nil {
			t.Fatalf("plugin %s: %v", p.Spec.Name, p.Err)
		}
	}
	return m
}

// chainPid is the pid of the process serving s's chain.
func chainPid(t *testing.T, s interface{ Chain() sdk.Chain }) int {
	t.Helper()
	st, err := s.Chain().ChainStatus(context.Background(), sdk.ChainStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return st.Status.Port
}

func TestSlotsRunTheirOwnPerSessionPlugins(t *testing.T) {
	m := startFakes(t)
	ctx := context.Background()
	s1 := m.Slot(1)
	if status, _ := s1.ByName("fakechain").Health(); status != "idle" {
		t.Errorf("slot 1's chain before any call: %s, want idle", status)
	}

	pid0, pid1 := chainPid(t, m), chainPid(t, s1)
	if pid0 == 0 || pid1 == 0 || pid0 == pid1 {
		t.Fatalf("chain pids: slot 0 %d, slot 1 %d; want two processes", pid0, pid1)
	}
	if got := chainPid(t, m.Slot(1)); got != pid1 {
		t.Errorf("slot 1's chain again: pid %d, want the same process %d", got, pid1)
	}
	if got := chainPid(t, m.Slot(0)); got != pid0 {
		t.Errorf("Slot(0)'s chain: pid %d, want the manager's %d", got, pid0)
	}
	if pid2 := chainPid(t, m.Slot(2)); pid2 == pid0 || pid2 == pid1 {
		t.Errorf("slot 2's chain shares a process: %d", pid2)
	}
	p1 := s1.ByName("fakechain")
	if status, _ := p1.Health(); status != "running" || p1.Pid() != pid1 {
		t.Errorf("slot 1's chain: %s, pid %d; want running, pid %d", status, p1.Pid(), pid1)
	}

	// A plugin's own tool routed to the slot runs in the slot's process.
	var out json.RawMessage
	err := p1.Use(ctx, func(c *pluginhost.Conn) error {
		var err error
		out, err = c.CallTool(ctx, "pid", nil, nil)
		return err
	})
	var res struct{ Pid int }
	if err != nil || json.Unmarshal(out, &res) != nil || res.Pid != pid1 {
		t.Errorf("slot 1's chain_pid tool: %s, %v; want pid %d", out, err, pid1)
	}

	// The fixture is shared: every slot reaches slot 0's process.
	f0, err := m.Fixture().StartFixture(ctx, sdk.StartFixtureRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f1, err := s1.Fixture().StartFixture(ctx, sdk.StartFixtureRequest{})
	if err != nil || f1.Status.Port != f0.Status.Port {
		t.Errorf("slot 1's fixture: pid %d, %v; want slot 0's %d", f1.Status.Port, err, f0.Status.Port)
	}
	if s1.ByName("fakefixture") != m.Slot(0).ByName("fakefixture") {
		t.Error("slot 1's fixture plugin is not slot 0's")
	}
	if s1.ByName("nosuch") != nil {
		t.Error("ByName of an unknown plugin is not nil")
	}
	if err := s1.Use(ctx, sdk.CapBuild, func(*pluginhost.Conn) error { return nil }); sdk.AsError(err) == nil || sdk.AsError(err).Code != sdk.CodeCapabilityMissing {
		t.Errorf("slot 1 without a build plugin: %v, want %s", err, sdk.CodeCapabilityMissing)
	}
}

func TestSlotCrashIsItsOwn(t *testing.T) {
	m := startFakes(t)
	ctx := context.Background()
	s1 := m.Slot(1)
	pid0, pid1 := chainPid(t, m), chainPid(t, s1)

	_, err := s1.Chain().Mine(ctx, sdk.MineRequest{Blocks: crashBlocks})
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodePluginCrashed {
		t.Fatalf("crash of slot 1's chain: %v, want %s", err, sdk.CodePluginCrashed)
	}
	if status, _ := s1.ByName("fakechain").Health(); status != "crashed" {
		t.Errorf("slot 1's chain after its crash: %s", status)
	}
	if status, restarts := m.ByCapability(sdk.CapChain).Health(); status != "running" || restarts != 0 || chainPid(t, m) != pid0 {
		t.Errorf("slot 0's chain after slot 1's crash: %s, %d restarts", status, restarts)
	}
	if again := chainPid(t, s1); again == pid1 || again == 0 {
		t.Errorf("slot 1's chain after the crash: pid %d, want a relaunched process", again)
	}
	if _, restarts := s1.ByName("fakechain").Health(); restarts != 1 {
		t.Errorf("slot 1's chain restarts = %d, want 1", restarts)
	}
}

func TestShutdownStopsEverySlot(t *testing.T) {
	m := startFakes(t)
	ctx := context.Background()
	pids := []int{chainPid(t, m), chainPid(t, m.Slot(1)), chainPid(t, m.Slot(2)), m.ByCapability(sdk.CapFixture).Pid()}
	m.Shutdown(ctx)
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("plugin pid %d still exists after Shutdown (kill 0: %v)", pid, err)
		}
	}
	// Nothing starts after Shutdown: not a new slot, not a relaunch.
	if _, err := m.Slot(3).Chain().ChainStatus(ctx, sdk.ChainStatusRequest{}); err == nil {
		t.Error("a new slot's chain started after Shutdown")
	}
	if _, err := m.Slot(1).Chain().ChainStatus(ctx, sdk.ChainStatusRequest{}); err == nil {
		t.Error("slot 1's chain answered after Shutdown")
	}
}
