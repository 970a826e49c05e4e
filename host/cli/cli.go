package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mmcp-dev/mmcp/host"
	"github.com/mmcp-dev/mmcp/host/config"
)

// Main is the whole of cmd/mmcp: it parses flags, runs the command and
// returns the exit code. Only the MCP channel (or a command's own output)
// is written to stdout; logs go to stderr or --log-file.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cfg config.Config
	fs := globalFlagSet(&cfg)
	fs.SetOutput(stderr)
	fs.Usage = func() { writeOverview(stderr) }
	global, rest := splitGlobal(fs, args)
	if err := fs.Parse(global); err != nil {
		return 2
	}
	rest = append(fs.Args(), rest...)
	in := Input{Config: cfg, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	c, args := serveStdioCommand, rest
	if len(rest) > 0 {
		if isHelpFlag(rest[0]) {
			rest = append([]string{"help"}, rest[1:]...)
		}
		if c, args = lookup(rest); c == nil {
			return unknownCommand(rest[0], stderr)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A client that closes our stdout or stderr early must not kill us with
	// SIGPIPE before the session and the plugins are shut down: writes to a
	// closed pipe then just fail.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return c.run(ctx, in, args)
}

// splitGlobal takes the global flags out of args wherever they stand
// (before or after the subcommand, `mmcp serve --http --headless` as well
// as `mmcp --headless serve --http`), up to a "--". global keeps them in
// order, with their values; rest is everything else, in order.
func splitGlobal(fs *flag.FlagSet, args []string) (global, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return global, append(rest, args[i:]...)
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || name == "" {
			rest = append(rest, a)
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		if f == nil {
			rest = append(rest, a)
			continue
		}
		global = append(global, a)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); hasValue || (ok && b.IsBoolFlag()) {
			continue
		}
		if i+1 < len(args) {
			i++
			global = append(global, args[i])
		}
	}
	return global, rest
}

// jsonFlag declares a command's --json.
func jsonFlag(fs *flag.FlagSet) { fs.Bool("json", false, "print JSON") }

// startHost builds and starts a host (its plugins and tools); on a start
// failure the host is closed.
func startHost(ctx context.Context, cfg config.Config) (*host.Host, error) {
	h, err := host.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := h.Start(ctx); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

func runServe(ctx context.Context, cfg config.Config, stdin io.Reader, stdout, stderr io.Writer) int {
	h, err := startHost(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	defer h.Close()
	if err := h.ServeStdio(ctx, stdin, stdout); err != nil {
		h.Log().Error("stdio server stopped", "error", err)
		return 1
	}
	return 0
}

func init() {
	RegisterCommand(Command{
		Name:  "plugins",
		Usage: "[--json]",
		Short: "list the discovered plugins, their capabilities and tools, and why any failed",
		Flags: jsonFlag,
		Func:  runPlugins,
	})
}

func runPlugins(ctx context.Context, in Input) int {
	cfg, stdout, stderr := in.Config, in.Stdout, in.Stderr
	if len(in.Args) > 0 {
		return in.Misused()
	}
	asJSON := in.Flags.Bool("json")
	h, err := startHost(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	defer h.Close()
	type row struct {
		Name         string   `json:"name"`
		Path         string   `json:"path,omitempty"`
		Source       string   `json:"source"`
		Version      string   `json:"version,omitempty"`
		Capabilities []string `json:"capabilities"`
		Tools        []string `json:"tools"`
		Rejected     []string `json:"rejectedTools,omitempty"`
		Error        string   `json:"error,omitempty"`
		Refused      bool     `json:"refused,omitempty"`
	}
	var rows []row
	for _, p := range h.Plugins().Plugins() {
		r := row{Name: p.Spec.Name, Path: p.Spec.Path, Source: p.Spec.Source, Capabilities: []string{}, Tools: []string{}, Rejected: p.Rejected}
		if failure := p.Failure(); failure != nil {
			r.Error = failure.Error()
			r.Refused = p.Spec.Refused != ""
		} else {
			r.Version = p.Desc.Version
			for _, c := range p.Desc.Capabilities {
				r.Capabilities = append(r.Capabilities, string(c))
			}
			for _, t := range p.Desc.Tools {
				r.Tools = append(r.Tools, p.Spec.Name+"_"+t.Name)
			}
		}
		rows = append(rows, r)
	}
	if asJSON {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	if len(rows) == 0 {
		fmt.Fprintln(stdout, "no plugins found (see docs/plugins.md: discovery)")
	}
	for _, r := range rows {
		if r.Error != "" {
			state := "FAILED"
			if r.Refused {
				state = "NOT RUN"
			}
			fmt.Fprintf(stdout, "%-10s %s  %s\n           %s\n", r.Name, state, r.Path, r.Error)
			continue
		}
		fmt.Fprintf(stdout, "%-10s %-8s %s (%s)\n", r.Name, r.Version, r.Path, r.Source)
		fmt.Fprintf(stdout, "           capabilities: %s\n", strings.Join(r.Capabilities, ", "))
		if len(r.Tools) > 0 {
			fmt.Fprintf(stdout, "           tools: %s\n", strings.Join(r.Tools, ", "))
		}
		for _, rj := range r.Rejected {
			fmt.Fprintf(stdout, "           rejected: %s\n", rj)
		}
	}
	return 0
}
