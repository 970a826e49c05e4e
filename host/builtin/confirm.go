package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// confirmInput is mm_confirm's input.
type confirmInput struct {
	Action    string          `json:"action"`
	Expect    *confirm.Expect `json:"expect"`
	TimeoutMs int             `json:"timeoutMs"`
}

// confirmTools are mm_confirmation and mm_confirm: the pending
// confirmation read beside the dapp's request, and answered in one call.
func (g *reg) confirmTools() {
	add(g, "confirmation", tools.Tool{
		Description: "The wallet's pending confirmation (waits for its popup and makes it the active page): kind, origin, the dapp's request decoded (ETH and token units, calldata, typed data), what the wallet shows, and mismatches between the two.",
		Label:       knowledge.LabelDiscovery, Record: true, Timeout: 70 * time.Second,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		TimeoutMs int `json:"timeoutMs"`
	}) (any, error) {
		return g.Sessions.Confirmation(ctx, time.Duration(in.TimeoutMs)*time.Millisecond)
	})
	add(g, "confirm", tools.Tool{
		Description: "Approve or reject the pending confirmation through the wallet's buttons (both steps of a connect), wait for the popup to close and a transaction's receipt; answers the tx hash, status, gas, ETH change, token/NFT events and what the dapp received. With expect, refuses with MM_EXPECTATION_FAILED (nothing clicked) when a field differs.",
		Label:       knowledge.LabelInteraction, Observe: true, Record: true, Timeout: 2 * time.Minute,
	}, func(ctx context.Context, _ *tools.Call, in confirmInput) (any, error) {
		return g.Sessions.Confirm(ctx, in.Action == "approve", in.Expect, time.Duration(in.TimeoutMs)*time.Millisecond)
	})
}
