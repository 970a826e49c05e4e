package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk/client"
)

// runReplay is `mmcp replay <log.jsonl> [--keep-going] [--log FILE]`: it
// runs the calls of a JSONL call log (its "before" lines, or plain
// {"name","arguments"} lines) in order, prints one line per call and a
// summary, and exits 1 when a call failed.
func runReplay(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) int {
	const use = "usage: mmcp [flags] replay <log.jsonl | -> [--keep-going] [--log FILE]"
	var (
		keepGoing bool
		logPath   string
		pos       []string
	)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--keep-going" || a == "-keep-going":
			keepGoing = true
		case a == "--log" || a == "-log":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, use)
				return 2
			}
			logPath = args[i+1]
			i++
		case strings.HasPrefix(a, "--log="):
			logPath = strings.TrimPrefix(a, "--log=")
		case a == "-h" || a == "--help":
			fmt.Fprintln(stderr, use)
			return 2
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, use)
		return 2
	}
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
