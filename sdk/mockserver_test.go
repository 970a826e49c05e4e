package sdk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/plugintest"
)

// fakeMock is an in-memory MockServer.
type fakeMock struct {
	echo
	status sdk.MockServerStatus
	opts   sdk.MockServerOptions
}

func (m *fakeMock) Start(_ context.Context, o sdk.MockServerOptions) (sdk.MockServerStatus, error) {
	if m.status.Running {
		return sdk.MockServerStatus{}, sdk.Errorf(sdk.CodeInvalidInput, "already running").WithDetails(map[string]any{"port": m.status.Port})
	}
	m.opts = o
	m.status = sdk.MockServerStatus{Running: true, Address: "127.0.0.1:40123", Port: 40123, SPKIHash: "q83vEjRWeJA="}
	return m.status, nil
}
func (m *fakeMock) Stop(context.Context) error                           { m.status = sdk.MockServerStatus{}; return nil }
func (m *fakeMock) IsRunning(context.Context) (bool, error)              { return m.status.Running, nil }
func (m *fakeMock) Status(context.Context) (sdk.MockServerStatus, error) { return m.status, nil }

// The MockServer capability crosses the wire intact: declared in Describe,
// every field of the status, domain errors as *sdk.Error.
func TestWireMockServer(t *testing.T) {
	p := &fakeMock{}
	c := plugintest.Serve(t, p)
	ctx := context.Background()
	d, err := c.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Has(sdk.CapMockServer) || d.Has(sdk.CapChain) {
		t.Fatalf("capabilities %v, want mockServer", d.Capabilities)
	}
	m := c.MockServer()
	if ok, err := m.IsRunning(ctx); err != nil || ok {
		t.Fatalf("running before start: %v %v", ok, err)
	}
	st, err := m.Start(ctx, sdk.MockServerOptions{Port: 40123})
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.MockServerStatus{Running: true, Address: "127.0.0.1:40123", Port: 40123, SPKIHash: "q83vEjRWeJA="}
	if st != want || p.opts.Port != 40123 {
		t.Fatalf("start = %+v (opts %+v), want %+v", st, p.opts, want)
	}
	if st, err := m.Status(ctx); err != nil || st != want {
		t.Fatalf("status = %+v %v", st, err)
	}
	if ok, err := m.IsRunning(ctx); err != nil || !ok {
		t.Fatalf("running after start: %v %v", ok, err)
	}
	_, err = m.Start(ctx, sdk.MockServerOptions{})
	var de *sdk.Error
	if !errors.As(err, &de) || de.Code != sdk.CodeInvalidInput || de.Details["port"] != float64(40123) {
		t.Fatalf("second start: %v", err)
	}
	if err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := m.Status(ctx); err != nil || st.Running {
		t.Fatalf("status after stop = %+v %v", st, err)
	}
}
