package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mmcp-dev/mmcp/host/config"

	"github.com/mmcp-dev/mmcp/client"
)

// runReplay is `mmcp replay <log.jsonl> [--keep-going] [--secret
// FIELD=ENVVAR] [--log FILE]`: it runs the calls of a JSONL call log (its
// "before" lines, or plain {"name","arguments"} lines) in order, prints one
// line per call and a summary, and exits 1 when a call failed. A value the
// log withheld must be supplied with --secret, else nothing runs.
func runReplay(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) int {
	const use = "usage: mmcp [flags] replay <log.jsonl | -> [--session ID] [--keep-going] [--secret FIELD=ENVVAR ...] [--log FILE [--sidecars]]"
	fs := subcommand("replay", use, stderr)
	keepGoingFlag := fs.Bool("keep-going", false, "run every call even after a failure")
	log := logFlags(fs, "the replay")
	session := sessionFlag(fs)
	secrets := map[string]string{}
	fs.Func("secret", "supply a value the log withheld: FIELD (an argument's name, e.g. text, or dotted path, e.g. steps.2.args.text) from environment variable ENVVAR; repeatable", func(v string) error {
		field, env, ok := strings.Cut(v, "=")
		if !ok || field == "" || env == "" {
			return fmt.Errorf("want FIELD=ENVVAR, got %q", v)
		}
		val, set := os.LookupEnv(env)
		if !set {
			return fmt.Errorf("environment variable %s (for %s) is not set", env, field)
		}
		secrets[field] = val
		return nil
	})
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	keepGoing := *keepGoingFlag
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
	conn, err := connectCLI(ctx, cfg, *log, *session, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp replay:", err)
		return 1
	}
	defer conn.Close()
	res, runErr := client.RunSequence(ctx, conn.Handle, in, client.SequenceOptions{KeepGoing: keepGoing, Secrets: secrets})
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
