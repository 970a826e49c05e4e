// Package mmcp is the typed Go handle of mmcp's own tools (mm_*), generated
// by `mmcp gen` from the live registry: one method per tool (mm_click is
// Click, mm_knowledge_sessions is KnowledgeSessions) with an args struct
// derived from its input schema, returning the decoded envelope.
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
//	env, err := h.GetState(ctx)
//
// The generated Connect checks the hash of the whole registry instead; use
// it only against a host without plugin tools.
package mmcp
