// Package builtin defines the host's own tools: one definition per tool
// (name, description, schema file, label, observation and record flags,
// handler), registered with tools.Add. A handler maps its decoded input
// onto one session.Manager method and returns its typed result; the
// runner makes the step record from what that result tells it
// (tools.Targeted, tools.Observed, ...), so no handler touches a record.
// Plugins' tools are registered here too, as <plugin>_<tool>.
package builtin

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// Deps are what the built-in tools work with: each handler calls one
// method of Sessions; Plugins lists the plugins' own tools.
type Deps struct {
	// Prefix is the tool prefix ("mm").
	Prefix   string
	Sessions *session.Manager
	Plugins  *plugins.Manager
	Log      hclog.Logger
	// Workspace is the host's workspace ("" for none): where the flow
	// tools resolve a client's paths.
	Workspace string
}

// reg registers tools on a runner, keeping the first error.
type reg struct {
	Deps
	r   *tools.Runner
	err error
}

// name is a tool's name with the prefix.
func (g *reg) name(base string) string { return g.Prefix + "_" + base }

// spec is the definition of tool base: its prefixed name and its schema
// file (host/schemas/<base>.json).
func (g *reg) spec(base string, t tools.Tool) tools.Tool {
	t.Name, t.Schema, t.ReadOnly = g.name(base), schemas.Get(base), readOnly[base]
	return t
}

// add registers one tool.
func add[In any](g *reg, base string, t tools.Tool, fn func(ctx context.Context, c *tools.Call, in In) (any, error)) {
	if g.err != nil {
		return
	}
	g.err = tools.Add(g.r, g.spec(base, t), fn)
}

// Register registers the built-in tools, then the plugins' own tools.
func Register(r *tools.Runner, d Deps) error {
	g := &reg{Deps: d, r: r}
	if err := g.builtinTools(); err != nil {
		return err
	}
	g.pluginTools()
	return nil
}

// builtinTools registers the host's own tools.
func (g *reg) builtinTools() error {
	g.buildTool()
	g.watchTools()
	g.sessionTools()
	g.discoveryTools()
	g.knowledgeTools()
	g.contractTools()
	g.confirmTools()
	g.visualTools()
	g.checkpointTools()
	g.structureTools()
	g.flowTools()
	if g.err == nil {
		t := g.spec("run_steps", tools.Tool{
			Description: "Run up to 50 tool calls in one request. includeObservations: all (default; full observation recorded after each step), none (state only, fastest; prefer testId targets), failures (full observation only for failing steps).",
			Timeout:     30 * time.Minute,
			NoBatch:     true,
			Handler:     tools.RunSteps(g.name("run_steps")),
		})
		g.err = g.r.Add(&t)
	}
	return g.err
}
