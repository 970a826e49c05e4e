package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

// fromA is a checkpoint A saved at block 0 on chain 1337; accepted
// records the extension its build was checked against.
func fromA(accepted *string) *From {
	return &From{Name: "A", ChainID: 1337, ChainState: json.RawMessage(`"0x1f8b"`),
		Wallet: func(port int) sdk.WalletState {
			return sdk.WalletState(fmt.Sprintf(`{"data":{"KeyringController":{"vault":"v"},"rpc":"http://localhost:%d"},"meta":{}}`, port))
		},
		Accept: func(_ context.Context, ext string) error { *accepted = ext; return nil }}
}

// A launch from a checkpoint starts the chain with the checkpoint's
// state and chain id, serves its wallet state for the chain's port in
// place of stateMode's, checks the build, and unlocks.
func TestLaunchFromCheckpoint(t *testing.T) {
	w := newWorld()
	w.built = true
	var accepted string
	d := w.deps()
	d.From = fromA(&accepted)
	p, err := Launch(context.Background(), d, Input{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.chainOpts.ChainID != 1337 || string(w.chainState) != `"0x1f8b"` {
		t.Fatalf("chain started with %+v state %s", w.chainOpts, w.chainState)
	}
	if !strings.Contains(string(w.served), "http://localhost:9545") || accepted != "/ws/out/ext" {
		t.Fatalf("served %s, build checked on %q", w.served, accepted)
	}
	if slices.Contains(w.calls, "fixture.state") || !slices.Contains(w.calls, "wallet.unlock") {
		t.Fatalf("calls %v: want the checkpoint's state (no fixture.state) unlocked", w.calls)
	}
	if i := slices.IndexFunc(p.Prerequisites, func(pr Prerequisite) bool { return pr.Step == "chain" }); i < 0 || !strings.Contains(p.Prerequisites[i].Description, "checkpoint A's state") {
		t.Fatalf("prerequisites %+v", p.Prerequisites)
	}
}

// A checkpoint of another build stops the launch before anything starts;
// a chain plugin that did not load the state fails the chain step and
// stops what started; a state argument beside fromCheckpoint is refused.
func TestLaunchFromCheckpointRefused(t *testing.T) {
	w := newWorld()
	w.built = true
	d := w.deps()
	var accepted string
	d.From = fromA(&accepted)
	d.From.Accept = func(context.Context, string) error {
		return sdk.Errorf(sdk.CodeCheckpointMismatch, "checkpoint A was saved on build x")
	}
	if _, err := Launch(context.Background(), d, Input{}, nil); sdk.AsError(err).Code != sdk.CodeCheckpointMismatch || slices.Contains(w.calls, "chain.start") {
		t.Fatalf("another build: %v, calls %v", err, w.calls)
	}

	w = newWorld()
	w.built = true
	d = w.deps()
	d.From = fromA(&accepted)
	d.From.Block = 7 // the fake chain answers block 0: the state was not loaded
	_, err := Launch(context.Background(), d, Input{}, nil)
	if e := sdk.AsError(err); e.Code != sdk.CodeLaunchFailed || !strings.Contains(e.Message, "did not load") || !slices.Contains(w.calls, "chain.stop") {
		t.Fatalf("unloaded state: %v, calls %v", err, w.calls)
	}

	w = newWorld()
	d = w.deps()
	d.From = fromA(&accepted)
	if _, err := Launch(context.Background(), d, Input{FixturePreset: "withTokens"}, nil); sdk.AsError(err).Code != sdk.CodeInvalidInput || len(w.calls) != 0 {
		t.Fatalf("fixturePreset with fromCheckpoint: %v, calls %v", err, w.calls)
	}
}
