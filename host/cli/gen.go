package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/client/codegen"
)

// DefaultGenOut is where `mmcp gen` writes the typed handles by default.
const DefaultGenOut = "client/mmcp/tools_gen.go"

// GenOptions configures Gen.
type GenOptions struct {
	// Command spawns the host to list the tools of (stdio).
	Command client.Command
	// Out is the file to write.
	Out string
	// Package is the generated package name.
	Package string
	// Prefix is the host's tool prefix ("mm"): stripped from method names
	// and, unless All, the filter of the tools that get handles.
	Prefix string
	// All generates every listed tool, plugin tools included; by default
	// only the host's own tools (Prefix_*) are generated, so the file does
	// not depend on which plugins are installed.
	All bool
	// RegenerateCommand is written in the file header.
	RegenerateCommand string
}

// Gen lists the host's tools, renders the typed handles and writes
// opts.Out when its content changed. It prints "Generated N tools." or
// "No changes." to w and reports whether it wrote.
func Gen(ctx context.Context, opts GenOptions, w io.Writer) (changed bool, err error) {
	h, err := client.Connect(ctx, client.Options{Command: opts.Command, Log: client.LoggerOptions{Writer: io.Discard}})
	if err != nil {
		return false, fmt.Errorf("gen: %w", err)
	}
	tools := h.Tools()
	if err := h.Close(ctx); err != nil {
		return false, fmt.Errorf("gen: %w", err)
	}
	if !opts.All {
		tools = OwnTools(tools, opts.Prefix)
	}
	src, err := codegen.Render(codegen.Input{
		Tools:     tools,
		Package:   opts.Package,
		Prefix:    opts.Prefix,
		Generated: time.Now(),
		Command:   opts.RegenerateCommand,
		Envelope:  true,
	})
	if err != nil {
		return false, fmt.Errorf("gen: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(opts.Out), 0o755); err != nil {
		return false, fmt.Errorf("gen: %w", err)
	}
	changed, err = codegen.WriteIfChanged(opts.Out, src)
	if err != nil {
		return false, fmt.Errorf("gen: %w", err)
	}
	if w != nil {
		if changed {
			fmt.Fprintf(w, "Generated %d tools.\n", len(tools))
		} else {
			fmt.Fprintln(w, "No changes.")
		}
	}
	return changed, nil
}

// OwnTools returns the tools named "<prefix>_*": the host's built-in tools,
// without the tools plugins add.
func OwnTools(tools []mcp.Tool, prefix string) []mcp.Tool {
	var out []mcp.Tool
	for _, t := range tools {
		if strings.HasPrefix(t.Name, prefix+"_") {
			out = append(out, t)
		}
	}
	return out
}

func init() {
	RegisterCommand(Command{
		Name:  "gen",
		Usage: "[--out FILE] [--package NAME] [--builtin-only | --all]",
		Short: "write typed Go handles of the host's own tools (--all: the plugins' too)",
		Flags: func(fs *flag.FlagSet) {
			fs.String("out", DefaultGenOut, "file to write")
			fs.String("package", "", "package name (default: the output directory's name, else mmcp)")
			fs.Bool("all", false, "include plugin tools")
			fs.Bool("builtin-only", false, "only the host's own tools (the default)")
		},
		Func: runGen,
	})
}

// runGen is `mmcp gen [--out FILE] [--package NAME] [--all]`.
func runGen(ctx context.Context, in Input) int {
	cfg, stdout, stderr := in.Config, in.Stdout, in.Stderr
	if len(in.Args) > 0 {
		return in.Misused()
	}
	f := in.Flags
	out, pkg, all := f.String("out"), f.String("package"), f.Bool("all") && !f.Bool("builtin-only")
	if pkg == "" {
		pkg = "mmcp"
		if abs, err := filepath.Abs(out); err == nil {
			if base := filepath.Base(filepath.Dir(abs)); token(base) {
				pkg = base
			}
		}
	}
	prefix := cfg.ToolPrefix
	if prefix == "" {
		prefix = "mm"
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "mmcp gen:", err)
		return 1
	}
	// The host's own tools do not depend on the workspace: list them from
	// an empty one, so the output is the same wherever gen runs.
	repo := ""
	if all {
		resolved := cfg
		resolved.PluginPath = append([]string(nil), cfg.PluginPath...)
		if resolved.Resolve() == nil {
			repo = resolved.Repo
		}
	}
	if repo == "" {
		tmp, err := os.MkdirTemp("", "mmcp-gen-")
		if err != nil {
			fmt.Fprintln(stderr, "mmcp gen:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		repo = tmp
	}
	raw := cfg
	if !all {
		raw.ConfigFile = "" // the workspace's config adds plugins only
	}
	regen := fmt.Sprintf("mmcp gen --out %s --package %s", filepath.Base(out), pkg)
	if all {
		regen += " --all"
	}
	cctx, cancel := context.WithTimeout(ctx, 2*cliConnectTimeout)
	defer cancel()
	_, err = Gen(cctx, GenOptions{
		Command:           client.Command{Path: exe, Args: spawnArgs(raw, repo), Stderr: stderr},
		Out:               out,
		Package:           pkg,
		Prefix:            prefix,
		All:               all,
		RegenerateCommand: regen,
	}, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp gen:", err)
		return 1
	}
	return 0
}

// token reports whether s is usable as a Go package name.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}
