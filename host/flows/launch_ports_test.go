package flows

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// portsSession answers mm_launch with MM_PORT_IN_USE busy times, keeping
// the ports each launch asked for.
type portsSession struct {
	Session
	busy  int
	ports []any
}

func (p *portsSession) Call(_ context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	p.ports = append(p.ports, args["ports"])
	if p.busy > 0 {
		p.busy--
		return nil, sdk.Errorf(sdk.CodePortInUse, "port in use")
	}
	return json.RawMessage(`{"sessionId":"s"}`), nil
}

// TestLaunchOnNewPortsWhenTaken: a free port another program took before
// the launch bound it costs a retry on new ports, not the flow; ports the
// flow names are never changed, and a port that stays busy answers its code.
func TestLaunchOnNewPortsWhenTaken(t *testing.T) {
	s := &portsSession{busy: 1}
	if _, err := launchOn(context.Background(), s, map[string]any{}, true); err != nil {
		t.Fatalf("launch: %v", err)
	}
	if len(s.ports) != 2 || reflect.DeepEqual(s.ports[0], s.ports[1]) {
		t.Fatalf("launches asked for %v, want two launches on different ports", s.ports)
	}

	named := map[string]any{"ports": map[string]any{"anvil": 9545}}
	s = &portsSession{busy: 1}
	_, err := launchOn(context.Background(), s, named, false)
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodePortInUse || len(s.ports) != 1 {
		t.Fatalf("named ports: err %v after %d launches, want MM_PORT_IN_USE after 1", err, len(s.ports))
	}

	s = &portsSession{busy: 100}
	_, err = launchOn(context.Background(), s, map[string]any{}, true)
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodePortInUse || len(s.ports) != launchPortTries {
		t.Fatalf("always busy: err %v after %d launches, want MM_PORT_IN_USE after %d", err, len(s.ports), launchPortTries)
	}
}
