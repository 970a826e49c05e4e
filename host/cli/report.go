package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mmcp-dev/mmcp/host/flows"
)

func init() {
	RegisterCommand(Command{
		Name:  "report",
		Usage: "--html DIR FILES...",
		Short: "write a static HTML report (opens from disk) of `mmcp test --json` summaries, shards' ones merged",
		Long:  "The report shows each flow passed, failed or flaky with its steps and durations, a failed flow's screenshot, visual diffs (expected, actual, diff), structure diffs, console errors and links to its step records (docs/flows.md).",
		Flags: func(fs *flag.FlagSet) {
			fs.String("html", "", "write the report to `DIR`/index.html")
		},
		Func: runReport,
	})
}

// runReport is `mmcp report --html DIR FILES...`: the JSON summaries,
// merged, as an HTML report. Exit 1 when the summaries have a failure,
// as merge-reports.
func runReport(_ context.Context, in Input) int {
	dir := in.Flags.String("html")
	if dir == "" || len(in.Args) == 0 {
		return in.Misused()
	}
	s, err := flows.MergeJSON(in.Args)
	if err != nil {
		fmt.Fprintln(in.Stderr, "mmcp report:", err)
		return 1
	}
	fmt.Fprintf(in.Stdout, "mmcp report: %s\n", s.Counts())
	if code := writeHTMLReport(s, dir, in.Stdout, in.Stderr); code != 0 || !s.OK() {
		return max(code, 1)
	}
	return 0
}

// writeHTMLReport writes s's HTML report to dir when dir is given
// (`mmcp test --html DIR`, `mmcp report`).
func writeHTMLReport(s flows.Summary, dir string, stdout, stderr io.Writer) int {
	if dir == "" {
		return 0
	}
	path, err := s.WriteHTML(dir)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp: --html:", err)
		return 1
	}
	fmt.Fprintln(stdout, "HTML report:", path)
	return 0
}
