// Package mmcp is the typed Go handle of mmcp's own tools (mm_*), generated
// by `mmcp gen` from the live registry: one method per tool, under the
// Root namespace (the tools without a namespace: mm_click is h.Root.Click,
// mm_knowledge_sessions is h.Root.KnowledgeSessions), with an args struct
// derived from its input schema ("$ref" definitions become named types:
// KnowledgeFilters, KnowledgeScope), returning the decoded envelope.
//
// Open connects with the drift check limited to mmcp's own tools, so
// plugins that add tools (chain_*, fixture_*, ...) do not count as drift:
//
//	h, err := mmcp.Open(ctx, client.Options{
//		Command: client.Command{Path: "mmcp", Args: []string{"--repo", repo, "--headless"}},
//		Adapter: client.MMCPAdapter{LaunchArgs: map[string]any{"stateMode": "default"}},
//	})
//	...
//	defer h.Close(ctx)
//	env, err := h.Root.GetState(ctx)
//	env, err = h.Root.Click(ctx, mmcp.ClickArgs{TestID: ptr("eth-overview-send")})
//
// The generated Connect checks the hash of the whole registry instead; use
// it only against a host without plugin tools.
package mmcp
