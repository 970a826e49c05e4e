package session

import (
	"context"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/visual"
)

// StructureInput is mm_structure_check's input.
type StructureInput struct {
	Name         string `json:"name"`
	RootSelector string `json:"rootSelector"`
	Strict       bool   `json:"strict"`
	// Masks is the mask preset: "wallet" (the default) or "none".
	Masks  string `json:"masks"`
	Update bool   `json:"update"`
}

// StructureResult is mm_structure_check's answer.
type StructureResult struct {
	Name       string `json:"name"`
	MaskPreset string `json:"maskPreset"`
	Strict     bool   `json:"strict"`
	visual.StructureOutcome
}

// RecordLabels implements tools.Labeled: "structure:<status>:<name>", so
// that mm_knowledge_search finds the checks that changed
// ("structure:changed").
func (r StructureResult) RecordLabels() []string {
	if r.Status == "" {
		return nil
	}
	return []string{"structure:" + r.Status + ":" + r.Name}
}

// StructureCheck is mm_structure_check: the active page's trimmed tree
// (the agent's refs left alone; names that differ between sessions as
// the wallet preset's placeholders, unless in.Masks is "none") compared
// with the baseline of in.Name (package visual).
func (m *Manager) StructureCheck(ctx context.Context, in StructureInput) (StructureResult, error) {
	if err := visual.ValidName(in.Name); err != nil {
		return StructureResult{}, err
	}
	s, err := m.Page(ctx)
	if err != nil {
		return StructureResult{}, err
	}
	tree, err := discovery.Structure(ctx, s.wallet.ActivePage(), in.RootSelector)
	if err != nil {
		return StructureResult{}, err
	}
	nodes := make([]visual.StructNode, len(tree))
	for i, n := range tree {
		nodes[i] = visual.StructNode{Role: n.Role, Name: n.Name, States: discovery.States(n), Path: n.Path}
		if in.Masks != "none" {
			p := discovery.WalletPreset
			nodes[i].Name = p.Placeholders(n.Name)
			nodes[i].Path = make([]string, len(n.Path))
			for k, l := range n.Path {
				nodes[i].Path[k] = p.Placeholders(l)
			}
		}
	}
	out, err := m.cfg.Visual.CheckStructure(visual.StructureInput{Name: in.Name, Root: in.RootSelector, Masks: in.Masks,
		Nodes: nodes, Strict: in.Strict, Update: in.Update})
	if err != nil {
		return StructureResult{}, err
	}
	return StructureResult{Name: in.Name, MaskPreset: in.Masks, Strict: in.Strict, StructureOutcome: out}, nil
}
