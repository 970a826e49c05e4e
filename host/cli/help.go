package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mmcp-dev/mmcp/host"
	"github.com/mmcp-dev/mmcp/host/config"
)

func init() {
	RegisterCommand(Command{
		Name:    "help",
		Usage:   "[COMMAND]",
		Short:   "print this overview, or one command's usage and own flags",
		RawArgs: true,
		Func:    runHelp,
	})
	RegisterCommand(Command{
		Name:  "version",
		Short: "print the version",
		Func: func(_ context.Context, in Input) int {
			if len(in.Args) > 0 {
				return in.Misused()
			}
			fmt.Fprintln(in.Stdout, "mmcp", host.Version)
			return 0
		},
	})
}

// serveStdioCommand is what mmcp runs with no command: MCP over stdio.
var serveStdioCommand = &Command{
	Name:  "",
	Short: "serve MCP over stdio (what an MCP client runs)",
	Func: func(ctx context.Context, in Input) int {
		if len(in.Args) > 0 {
			return in.Misused()
		}
		return runServe(ctx, in.Config, in.Stdin, in.Stdout, in.Stderr)
	},
}

// runHelp is `mmcp help [COMMAND]`.
func runHelp(_ context.Context, in Input) int {
	if len(in.Args) == 0 {
		writeOverview(in.Stdout)
		return 0
	}
	c, rest := lookup(in.Args)
	if c != nil && len(rest) == 0 {
		c.writeHelp(in.Stdout)
		return 0
	}
	if fam := family(in.Args[0]); len(fam) > 0 && len(in.Args) == 1 {
		writeFamily(in.Stdout, fam)
		return 0
	}
	fmt.Fprintf(in.Stderr, "mmcp help: unknown command %q; mmcp help lists them\n", strings.Join(in.Args, " "))
	return 2
}

// unknownCommand answers a first word that names no command: a family's
// members when it is a family's first word ("mmcp flow"), else the
// overview; exit 2 either way.
func unknownCommand(word string, stderr io.Writer) int {
	if fam := family(word); len(fam) > 0 {
		writeFamily(stderr, fam)
		return 2
	}
	fmt.Fprintf(stderr, "mmcp: unknown command %q\n", word)
	writeOverview(stderr)
	return 2
}

// writeFamily lists the members of one family with their usage.
func writeFamily(w io.Writer, fam []*Command) {
	for _, c := range fam {
		fmt.Fprintln(w, c.usageLine())
		fmt.Fprintln(w, "    "+c.Short)
	}
}

// writeOverview is `mmcp help`: every command and the global flags.
func writeOverview(w io.Writer) {
	fmt.Fprint(w, `usage: mmcp [command] [flags]   (flags may stand before or after the command)

With no command mmcp serves MCP over stdio (what an MCP client runs).

Commands:
`)
	for _, c := range sortedCommands() {
		fmt.Fprintln(w, "  "+strings.TrimRight(c.Name+" "+c.Usage, " "))
		fmt.Fprintln(w, "        "+c.Short)
	}
	fmt.Fprint(w, "\n`mmcp help COMMAND` (or `mmcp COMMAND --help`) explains one command and its own flags.\n\nFlags (any command):\n")
	fs := globalFlagSet(&config.Config{})
	for _, s := range config.Settings {
		if s.Flag != "" {
			fmt.Fprintf(w, "  --%s\n        %s\n", strings.TrimSpace(s.Flag+" "+s.Arg), fs.Lookup(s.Flag).Usage)
		}
	}
}

// globalFlagSet is a fresh set of the flags every command takes (one a
// setting of host/config's table), bound to cfg.
func globalFlagSet(cfg *config.Config) *flag.FlagSet {
	fs := flag.NewFlagSet("mmcp", flag.ContinueOnError)
	config.DeclareFlags(fs, cfg)
	return fs
}
