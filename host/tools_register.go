package host

import "github.com/mmcp-dev/mmcp/host/tools"

// registerTools registers the built-in tools, then the plugins' own tools.
func (h *Host) registerTools() error {
	for _, t := range []*tools.Tool{
		h.buildTool(),
	} {
		if err := h.runner.Add(t); err != nil {
			return err
		}
	}
	h.pluginTools()
	return nil
}
