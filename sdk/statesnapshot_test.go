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
func (r *reader) Probe(context.Context, sdk.ProbeRequest) (sdk.ProbeResponse, error) {
	return sdk.ProbeResponse{Probe: sdk.StateProbe{Elements: map[string]string{"pw": "#pw"}, Script: "window.x"}}, nil
}
func (r *reader) DetectScreen(_ context.Context, req sdk.DetectScreenRequest) (sdk.DetectScreenResponse, error) {
	r.got = req.Page
	if req.Page.Elements["pw"].Present {
		return sdk.DetectScreenResponse{Screen: "login"}, nil
	}
	return sdk.DetectScreenResponse{}, sdk.Errorf(sdk.CodeInvalidInput, "no idea")
}
func (r *reader) State(_ context.Context, req sdk.StateRequest) (sdk.StateResponse, error) {
	unlocked, chain, ext := false, req.ChainID, req.ExtensionID
	return sdk.StateResponse{Status: sdk.WalletStatus{IsUnlocked: &unlocked, ChainID: &chain, NetworkName: &ext}}, nil
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
	pr, err := ss.Probe(context.Background(), sdk.ProbeRequest{})
	p := pr.Probe
	if err != nil || p.Elements["pw"] != "#pw" || p.Script != "window.x" {
		t.Fatalf("probe %+v, %v", p, err)
	}
	page := sdk.PageSnapshot{URL: "chrome-extension://x/home.html#/", Role: "extension",
		Elements: map[string]sdk.ElementProbe{"pw": {Present: true, Text: "Password"}}, AppState: json.RawMessage(`{"a":1}`)}
	if s, err := ss.DetectScreen(context.Background(), sdk.DetectScreenRequest{Page: page}); err != nil || s.Screen != "login" {
		t.Fatalf("screen %q, %v", s.Screen, err)
	}
	if r.got.URL != page.URL || r.got.Role != "extension" || r.got.Elements["pw"].Text != "Password" || string(r.got.AppState) != `{"a":1}` {
		t.Fatalf("plugin got %+v", r.got)
	}
	page.Elements = nil
	if _, err := ss.DetectScreen(context.Background(), sdk.DetectScreenRequest{Page: page}); sdk.AsError(err).Code != sdk.CodeInvalidInput {
		t.Fatalf("domain error %v", err)
	}
	res, err := ss.State(context.Background(), sdk.StateRequest{Page: page, SnapshotOptions: sdk.SnapshotOptions{ExtensionID: "ext", ChainID: 1337}})
	ws := res.Status
	if err != nil || ws.IsUnlocked == nil || *ws.IsUnlocked || *ws.ChainID != 1337 || *ws.NetworkName != "ext" ||
		ws.AccountAddress != nil || ws.Balance != nil {
		t.Fatalf("state %+v, %v", ws, err)
	}
}
