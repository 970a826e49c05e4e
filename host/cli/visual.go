package cli

import (
	"fmt"
	"io"

	"github.com/mmcp-dev/mmcp/host/config"
)

// runVisual is `mmcp visual approve NAME`: the last screenshot of check
// NAME becomes its baseline.
func runVisual(cfg config.Config, args []string, stdout, stderr io.Writer) int {
	fs := subcommand("visual", "usage: mmcp [flags] visual approve NAME", stderr)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 2 || pos[0] != "approve" {
		fs.Usage()
		return 2
	}
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	path, err := cfg.VisualStore().Approve(pos[1])
	if err != nil {
		fmt.Fprintln(stderr, "mmcp visual approve:", err)
		return 1
	}
	fmt.Fprintln(stdout, "baseline updated:", path)
	return 0
}
