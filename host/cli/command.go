package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/config"
)

// Command is one mmcp command: what `mmcp help` lists, what `mmcp help
// NAME` (or `mmcp NAME --help`) explains, and what Main runs. Each
// command's file registers its own in init (the shape of caddy's cmd
// package).
type Command struct {
	// Name is how the command is invoked: one word, or two for a member
	// of a family ("test merge-reports", "knowledge pull").
	Name string
	// Usage is the synopsis of the command's arguments and own flags, as
	// it follows the name: "[--log FILE] <tool> ['<json>' | -]".
	Usage string
	// Short is one line for the overview.
	Short string
	// Long is more for the command's own help (optional).
	Long string
	// Flags declares the command's own flags on a fresh set (nil: none).
	Flags func(fs *flag.FlagSet)
	// RawArgs hands the arguments to Func unparsed (serve's --http takes
	// an optional value, which package flag cannot express).
	RawArgs bool
	// Func runs the command and returns its exit code: 0 done, 1 failed,
	// 2 misused.
	Func func(ctx context.Context, in Input) int
}

// Input is what a command runs with.
type Input struct {
	// Config holds the global flags, not yet resolved.
	Config config.Config
	// Flags are the command's own flags, parsed.
	Flags Flags
	// Args are the positional arguments (all of them with RawArgs).
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	cmd *Command
}

// Misused prints the command's usage to stderr and returns 2, the exit
// code of a command used wrongly.
func (in Input) Misused() int {
	fmt.Fprintln(in.Stderr, in.cmd.usageLine())
	return 2
}

// Flags reads a command's parsed flags by name.
type Flags struct{ fs *flag.FlagSet }

func (f Flags) value(name string) any {
	fl := f.fs.Lookup(name)
	if fl == nil {
		panic(fmt.Sprintf("%s has no flag --%s", f.fs.Name(), name))
	}
	return fl.Value.(flag.Getter).Get()
}

// String is the value of a string flag.
func (f Flags) String(name string) string { return f.value(name).(string) }

// Bool is the value of a boolean flag.
func (f Flags) Bool(name string) bool { return f.value(name).(bool) }

// Int is the value of an int flag.
func (f Flags) Int(name string) int { return f.value(name).(int) }

// Duration is the value of a duration flag.
func (f Flags) Duration(name string) time.Duration { return f.value(name).(time.Duration) }

// Value is the flag.Value of a flag of the command's own type.
func (f Flags) Value(name string) flag.Value {
	fl := f.fs.Lookup(name)
	if fl == nil {
		panic(fmt.Sprintf("%s has no flag --%s", f.fs.Name(), name))
	}
	return fl.Value
}

// commands holds every registered command by name.
var commands = map[string]*Command{}

// RegisterCommand adds c to mmcp's commands. It panics on a duplicate or
// incomplete command: that is a programming error.
func RegisterCommand(c Command) {
	if c.Name == "" || c.Short == "" || c.Func == nil {
		panic(fmt.Sprintf("mmcp command %q needs a name, a short description and a Func", c.Name))
	}
	if _, dup := commands[c.Name]; dup {
		panic("mmcp command " + c.Name + " registered twice")
	}
	commands[c.Name] = &c
}

// sortedCommands is every command, by name.
func sortedCommands() []*Command {
	out := make([]*Command, 0, len(commands))
	for _, c := range commands {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookup finds the command args start with: a family member ("test
// merge-reports") before its first word ("test"). rest is what follows
// the name.
func lookup(args []string) (c *Command, rest []string) {
	if len(args) >= 2 {
		if c := commands[args[0]+" "+args[1]]; c != nil {
			return c, args[2:]
		}
	}
	if len(args) >= 1 {
		if c := commands[args[0]]; c != nil {
			return c, args[1:]
		}
	}
	return nil, args
}

// family is the commands whose name starts with word and a space.
func family(word string) []*Command {
	var out []*Command
	for _, c := range sortedCommands() {
		if strings.HasPrefix(c.Name, word+" ") {
			out = append(out, c)
		}
	}
	return out
}

// usageLine is "usage: mmcp [flags] NAME USAGE".
func (c *Command) usageLine() string {
	return strings.TrimRight("usage: mmcp [flags] "+c.Name+" "+c.Usage, " ")
}

// flagSet is a fresh set of the command's own flags.
func (c *Command) flagSet(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("mmcp "+c.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {} // run prints the usage itself, to the right stream
	if c.Flags != nil {
		c.Flags(fs)
	}
	return fs
}

// writeHelp is the command's own help: usage, description, own flags.
func (c *Command) writeHelp(w io.Writer) {
	fmt.Fprintln(w, c.usageLine())
	fmt.Fprintln(w)
	fmt.Fprintln(w, c.Short)
	if c.Long != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, c.Long)
	}
	fs := c.flagSet(w)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The global flags (mmcp help) may stand anywhere on the line.")
}

// run parses the command's own flags from args and runs it. A --help
// (-h) among them prints the command's help to stdout and exits 0; a bad
// flag exits 2 with the usage.
func (c *Command) run(ctx context.Context, in Input, args []string) int {
	in.cmd = c
	if c.RawArgs {
		if len(args) > 0 && isHelpFlag(args[0]) {
			c.writeHelp(in.Stdout)
			return 0
		}
		in.Args = args
		return c.Func(ctx, in)
	}
	fs := c.flagSet(in.Stderr)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.writeHelp(in.Stdout)
		return 0
	}
	if err != nil {
		return in.Misused()
	}
	in.Flags, in.Args = Flags{fs}, pos
	return c.Func(ctx, in)
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments (`replay log.jsonl --keep-going`) and returns the
// positionals in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
