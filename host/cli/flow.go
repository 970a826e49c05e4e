package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/flows"
	"github.com/mmcp-dev/mmcp/host/knowledge"
)

func init() {
	RegisterCommand(Command{
		Name:  "flow export",
		Usage: "SESSION_ID --out FILE [--name NAME]",
		Short: "write a flow file from a session recorded in the knowledge store",
		Flags: func(fs *flag.FlagSet) {
			fs.String("out", "", "write the flow to `FILE` (- for stdout)")
			fs.String("name", "", "the flow's name (default: the session's goal)")
		},
		Func: runFlowExport,
	})
}

// runFlowExport is `mmcp flow export SESSION_ID --out FILE [--name NAME]`:
// a flow file from a session recorded in the knowledge store of the
// workspace (--repo, --artifacts-dir).
func runFlowExport(ctx context.Context, in Input) int {
	cfg, pos, stdout, stderr := in.Config, in.Args, in.Stdout, in.Stderr
	out, name := in.Flags.String("out"), in.Flags.String("name")
	if len(pos) != 1 || out == "" {
		return in.Misused()
	}
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(stderr, "mmcp flow export:", err)
		return 1
	}
	k, err := knowledge.Open(filepath.Join(cfg.ArtifactsDir, "llm-knowledge"), hclog.NewNullLogger())
	if err != nil {
		fmt.Fprintln(stderr, "mmcp flow export:", err)
		return 1
	}
	meta, recs, err := k.SessionSteps(ctx, pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "mmcp flow export:", err)
		return 1
	}
	f, err := flows.Export(name, meta, recs)
	if err != nil {
		fmt.Fprintf(stderr, "mmcp flow export %s: %v\n", pos[0], err)
		return 1
	}
	b, err := f.YAML()
	if err != nil {
		fmt.Fprintln(stderr, "mmcp flow export:", err)
		return 1
	}
	head := "# mmcp flow exported from session " + pos[0] + " (schema: host/flows/flow.schema.json)\n"
	if len(f.Vars) > 0 {
		head += "# The record withheld some values: set " + strings.Join(f.Vars, ", ") + " in the environment to run it.\n"
	}
	b = append([]byte(head), b...)
	if out == "-" {
		_, _ = stdout.Write(b)
		return 0
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fmt.Fprintln(stderr, "mmcp flow export:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d steps, %s\n", out, len(f.Steps), f.Name)
	if len(f.Vars) > 0 {
		fmt.Fprintf(stdout, "the record withheld %d values: set %s in the environment to run it\n", len(f.Vars), strings.Join(f.Vars, ", "))
	}
	return 0
}
