package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/tools"
)

// checkpointTools are mm_checkpoint_save and mm_checkpoint_restore: a
// whole wallet session saved, and the same session taken back to it in
// place (docs/checkpoints.md).
func (g *reg) checkpointTools() {
	add(g, "checkpoint_save", tools.Tool{
		Description: "Save the session as checkpoint name (replacing one of that name): the chain (a snapshot, and its full state), the wallet's persisted state (vault encrypted), the open tabs and wallet screen, the mock rules, the deployed contracts and the build id. Kept private under the session's artifacts. Go back to it with mm_checkpoint_restore, as many times as you like.",
		Record:      true, NoBatch: true, Timeout: 2 * time.Minute,
	}, func(ctx context.Context, _ *tools.Call, in struct{ Name string }) (any, error) {
		return g.Sessions.SaveCheckpoint(ctx, in.Name)
	})
	add(g, "checkpoint_restore", tools.Tool{
		Description: "Take the session back to checkpoint name, in place (same session id, no new Chrome): the chain reverted, the saved wallet state served and the extension reloaded and unlocked, the mock rules and contract registry as saved, the saved tabs reopened (dapps reloaded) and the active one made active. MM_CHECKPOINT_NOT_FOUND lists the saved names; MM_CHECKPOINT_MISMATCH when it was saved on another build or chain id.",
		Record:      true, NoBatch: true, Timeout: 3 * time.Minute,
	}, func(ctx context.Context, _ *tools.Call, in struct{ Name string }) (any, error) {
		return g.Sessions.RestoreCheckpoint(ctx, in.Name)
	})
}
