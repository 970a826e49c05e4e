package cli

import (
	"context"
	"fmt"

	"github.com/mmcp-dev/mmcp/host/visual"
)

func init() {
	RegisterCommand(Command{
		Name:  "visual approve",
		Usage: "NAME",
		Short: "promote the last screenshot of visual check NAME (mm_visual_check) to its baseline",
		Func:  runVisualApprove,
	})
}

// runVisualApprove is `mmcp visual approve NAME`: the last screenshot of
// check NAME becomes its baseline.
func runVisualApprove(_ context.Context, in Input) int {
	cfg, pos, stdout, stderr := in.Config, in.Args, in.Stdout, in.Stderr
	if len(pos) != 1 {
		return in.Misused()
	}
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	path, err := visual.StoreIn(cfg.VisualBaselines, cfg.ArtifactsDir).Approve(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "mmcp visual approve:", err)
		return 1
	}
	fmt.Fprintln(stdout, "baseline updated:", path)
	return 0
}
