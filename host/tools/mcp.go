package tools

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Register adds every tool of r to s. Each MCP call goes through Run.
func (r *Runner) Register(s *server.MCPServer) {
	for _, t := range r.Tools() {
		s.AddTool(mcp.NewToolWithRawSchema(t.Name, t.Description, t.Schema), r.mcpHandler(t.Name))
	}
}

func (r *Runner) mcpHandler(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.RawArguments
		if len(args) == 0 && req.Params.Arguments != nil {
			args, _ = json.Marshal(req.Params.Arguments)
		}
		out := r.Run(ctx, Request{Tool: name, Args: args, Progress: progressFunc(ctx, req)})
		return ToResult(out), nil
	}
}

// ToResult turns an outcome into MCP content: the envelope as JSON text,
// then any images.
func ToResult(out Outcome) *mcp.CallToolResult {
	b, err := json.Marshal(out.Envelope)
	if err != nil {
		b = []byte(`{"ok":false,"error":{"code":"MM_INTERNAL_ERROR","message":"result is not JSON-marshalable"},"meta":{}}`)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: !out.Envelope.OK}
	for _, img := range out.Images {
		res.Content = append(res.Content, mcp.NewImageContent(img.Base64, img.MIMEType))
	}
	return res
}

// progressFunc sends notifications/progress when the request carried a
// progress token, and does nothing otherwise. Tools report progress when
// a step starts, so no notification races the response.
func progressFunc(ctx context.Context, req mcp.CallToolRequest) func(float64, float64, string) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	token := req.Params.Meta.ProgressToken
	srv := server.ServerFromContext(ctx)
	w := notifier(ctx)
	if srv == nil && w == nil {
		return nil
	}
	return func(done, total float64, msg string) {
		params := map[string]any{"progressToken": token, "progress": done}
		if total > 0 {
			params["total"] = total
		}
		if msg != "" {
			params["message"] = msg
		}
		if w != nil {
			_ = w.writeNotification("notifications/progress", params)
			return
		}
		_ = srv.SendNotificationToClient(ctx, "notifications/progress", params)
	}
}
