package sdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/plugintest"
)

// reader is a StateSnapshotter that echoes what it was given.
type reader struct{ got sdk.PageSnapshot }

func (r *reader) Info() sdk.Info                              { return sdk.Info{Name: "reader", Version: "1"} }
func (r *reader) Configure(context.Context, sdk.Config) error { return nil }
func (r *reader) Stop(context.Context) error                  { return nil }
func (r *reader) Probe(context.Context) (sdk.StateProbe, error) {
	return sdk.StateProbe{Elements: map[string]string{"pw": "#pw"}, Script: "window.x"}, nil
}
func (r *reader) DetectScreen(_ context.Context, p sdk.PageSnapshot) (string, error) {
	r.got = p
	if p.Elements["pw"].Present {
		return "login", nil
	}
	return "", sdk.Errorf(sdk.CodeInvalidInput, "no idea")
}
func (r *reader) State(_ context.Context, p sdk.PageSnapshot, o sdk.SnapshotOptions) (sdk.WalletStatus, error) {
	unlocked, chain := false, o.ChainID
	return sdk.WalletStatus{IsUnlocked: &unlocked, ChainID: &chain, NetworkName: &o.ExtensionID}, nil
}

// The StateSnapshot capability crosses gRPC intact: the probe, the page,
// unknown (nil) fields and domain errors.
func TestStateSnapshotOverGRPC(t *testing.T) {
	r := &reader{}
	c := plugintest.Serve(t, r)
	d, err := c.Describe(context.Background())
	if err != nil || !d.Has(sdk.CapStateSnapshot) {
		t.Fatalf("describe %+v, %v", d, err)
	}
	ss := c.StateSnapshot()
	p, err := ss.Probe(context.Background())
	if err != nil || p.Elements["pw"] != "#pw" || p.Script != "window.x" {
		t.Fatalf("probe %+v, %v", p, err)
	}
	page := sdk.PageSnapshot{URL: "chrome-extension://x/home.html#/", Role: "extension",
		Elements: map[string]sdk.ElementProbe{"pw": {Present: true, Text: "Password"}}, AppState: json.RawMessage(`{"a":1}`)}
	if s, err := ss.DetectScreen(context.Background(), page); err != nil || s != "login" {
		t.Fatalf("screen %q, %v", s, err)
	}
	if r.got.URL != page.URL || r.got.Role != "extension" || r.got.Elements["pw"].Text != "Password" || string(r.got.AppState) != `{"a":1}` {
		t.Fatalf("plugin got %+v", r.got)
	}
	page.Elements = nil
	if _, err := ss.DetectScreen(context.Background(), page); sdk.AsError(err).Code != sdk.CodeInvalidInput {
		t.Fatalf("domain error %v", err)
	}
	ws, err := ss.State(context.Background(), page, sdk.SnapshotOptions{ExtensionID: "ext", ChainID: 1337})
	if err != nil || ws.IsUnlocked == nil || *ws.IsUnlocked || *ws.ChainID != 1337 || *ws.NetworkName != "ext" ||
		ws.AccountAddress != nil || ws.Balance != nil {
		t.Fatalf("state %+v, %v", ws, err)
	}
}
