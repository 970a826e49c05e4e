package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mmcp-dev/mmcp/client"
)

// runReplay is `mmcp replay <log.jsonl> [--keep-going] [--secret
// FIELD=ENVVAR] [--log FILE]`: it runs the calls of a JSONL call log (its
// "before" lines, or plain {"name","arguments"} lines) in order, prints one
// line per call and a summary, and exits 1 when a call failed. A value the
// log withheld must be supplied with --secret, else nothing runs.
func init() {
	RegisterCommand(Command{
		Name:  "replay",
		Usage: "<log.jsonl | -> [--session ID] [--keep-going] [--secret FIELD=ENVVAR ...] [--log FILE [--sidecars]]",
		Short: "rerun the calls of a JSONL call log; stop at the first failure unless --keep-going",
		Long: `It runs the log's "before" lines (or plain {"name","arguments"} lines) in
order, attaching or spawning as call does. A value the log withheld (typed
text, keys) must come from --secret, else nothing runs.`,
		Flags: func(fs *flag.FlagSet) {
			fs.Bool("keep-going", false, "run every call even after a failure")
			logFlags(fs, "the replay")
			sessionFlag(fs)
			fs.Var(secretFlag{}, "secret", "supply a value the log withheld: FIELD (an argument's name, e.g. text, or dotted path, e.g. steps.2.args.text) from environment variable ENVVAR; repeatable")
		},
		Func: runReplay,
	})
}

// secretFlag is replay's repeatable --secret FIELD=ENVVAR: the field's
// value, read from the environment as the flag is parsed.
type secretFlag map[string]string

func (s secretFlag) String() string { return "" }

func (s secretFlag) Set(v string) error {
	field, env, ok := strings.Cut(v, "=")
	if !ok || field == "" || env == "" {
		return fmt.Errorf("want FIELD=ENVVAR, got %q", v)
	}
	val, set := os.LookupEnv(env)
	if !set {
		return fmt.Errorf("environment variable %s (for %s) is not set", env, field)
	}
	s[field] = val
	return nil
}

func runReplay(ctx context.Context, in Input) int {
	cfg, pos, stdout, stderr := in.Config, in.Args, in.Stdout, in.Stderr
	if len(pos) != 1 {
		return in.Misused()
	}
	keepGoing := in.Flags.Bool("keep-going")
	secrets := in.Flags.Value("secret").(secretFlag)
	src := in.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintln(stderr, "mmcp replay:", err)
			return 1
		}
		defer f.Close()
		src = f
	}
	conn, err := connectCLI(ctx, cfg, logOf(in.Flags), in.Flags.String("session"), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp replay:", err)
		return 1
	}
	defer conn.Close()
	res, runErr := client.RunSequence(ctx, conn.Handle, src, client.SequenceOptions{KeepGoing: keepGoing, Secrets: secrets})
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
