package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mmcp-dev/mmcp/host"

	"github.com/mmcp-dev/mmcp/sdk/client"
)

// runReplay is `mmcp replay <log.jsonl> [--keep-going] [--log FILE]`: it
// runs the calls of a JSONL call log (its "before" lines, or plain
// {"name","arguments"} lines) in order, prints one line per call and a
// summary, and exits 1 when a call failed.
func runReplay(ctx context.Context, cfg host.Config, args []string, stdout, stderr io.Writer) int {
	const use = "usage: mmcp [flags] replay <log.jsonl | -> [--keep-going] [--log FILE]"
	fs := subcommand("replay", use, stderr)
	keepGoingFlag := fs.Bool("keep-going", false, "run every call even after a failure")
	logFlag := fs.String("log", "", "append the JSONL call log of the replay to this file")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	keepGoing, logPath := *keepGoingFlag, *logFlag
	var in io.Reader = os.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintln(stderr, "mmcp replay:", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	conn, err := connectCLI(ctx, cfg, logPath, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp replay:", err)
		return 1
	}
	defer conn.Close()
	res, runErr := client.RunSequence(ctx, conn.Handle, in, client.SequenceOptions{KeepGoing: keepGoing})
	for _, c := range res.Calls {
		if c.Err != nil {
			fmt.Fprintf(stdout, "FAIL line %d %s: %v\n", c.Line, c.Name, c.Err)
			continue
		}
		fmt.Fprintf(stdout, "ok   line %d %s\n", c.Line, c.Name)
	}
	fmt.Fprintf(stdout, "replay: %d calls, %d ok, %d failed\n", res.OK+res.Failed, res.OK, res.Failed)
	if runErr != nil {
		fmt.Fprintln(stderr, "mmcp replay:", runErr)
		return 1
	}
	return 0
}
