package host

import (
	"time"

	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// registerTools registers the built-in tools, then the plugins' own tools.
func (h *Host) registerTools() error {
	all := []*tools.Tool{h.buildTool()}
	all = append(all, h.sessionTools()...)
	all = append(all, h.discoveryTools()...)
	all = append(all, h.knowledgeTools()...)
	all = append(all, h.contractTools()...)
	all = append(all, &tools.Tool{
		Name:        h.name("run_steps"),
		Description: "Run up to 50 tool calls in one request. includeObservations: all (default; full observation recorded after each step), none (state only, fastest; prefer testId targets), failures (full observation only for failing steps).",
		Schema:      schemas.Get("run_steps"),
		Timeout:     30 * time.Minute,
		NoBatch:     true,
		Handler:     tools.RunSteps(h.name("run_steps")),
	})
	for _, t := range all {
		if err := h.runner.Add(t); err != nil {
			return err
		}
	}
	h.pluginTools()
	return nil
}
