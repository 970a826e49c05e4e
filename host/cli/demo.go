package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/client"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/testwallet"
)

// demoStep is one call of the demo flow.
type demoStep struct {
	tool string
	args map[string]any
	// show picks what to print of the result.
	show func(map[string]any) string
}

func init() {
	RegisterCommand(Command{
		Name:  "demo",
		Short: "run a short real flow: the test wallet in Chrome, Anvil, the fixture server",
		Func:  runDemo,
	})
}

// runDemo is `mmcp demo`: it starts this binary as an MCP server over stdio
// (with its plugins), launches the embedded test wallet in Chrome against
// Anvil and the fixture server, runs a short flow, saves a screenshot and
// prints every step.
func runDemo(ctx context.Context, in Input) int {
	cfg, stdout, stderr := in.Config, in.Stdout, in.Stderr
	if len(in.Args) > 0 {
		return in.Misused()
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "mmcp demo:", err)
		return 1
	}
	ws, err := os.MkdirTemp("", "mmcp-demo-")
	if err != nil {
		fmt.Fprintln(stderr, "mmcp demo:", err)
		return 1
	}
	defer os.RemoveAll(ws)
	if err := os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"mmcp-demo","private":true}`), 0o644); err != nil {
		fmt.Fprintln(stderr, "mmcp demo:", err)
		return 1
	}
	wallet := filepath.Join(ws, "dist", "chrome")
	if err := testwallet.WriteTo(wallet); err != nil {
		fmt.Fprintln(stderr, "mmcp demo:", err)
		return 1
	}
	artifacts := cfg.ArtifactsDir
	if artifacts == "" {
		wd, _ := os.Getwd()
		artifacts = filepath.Join(wd, "test-artifacts")
	}
	artifacts, _ = filepath.Abs(artifacts)
	args := []string{"--repo", ws, "--artifacts-dir", artifacts, "--log-level", "warn"}
	if cfg.Headless {
		args = append(args, "--headless")
	}
	if cfg.Chrome != "" {
		args = append(args, "--chrome", cfg.Chrome)
	}
	if cfg.LogFile != "" {
		args = append(args, "--log-file", cfg.LogFile)
	}
	fmt.Fprintf(stdout, "mmcp demo: host %s, test wallet in %s\n", exe, wallet)
	c, err := client.SpawnStdio(ctx, client.Command{Path: exe, Args: args, Stderr: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "mmcp demo:", err)
		return 1
	}
	defer c.Close()

	str := func(m map[string]any, path ...string) string {
		var v any = m
		for _, p := range path {
			mm, _ := v.(map[string]any)
			v = mm[p]
		}
		if v == nil {
			return "-"
		}
		return fmt.Sprint(v)
	}
	steps := []demoStep{
		{"mm_launch", map[string]any{"stateMode": "default", "goal": "mmcp demo", "flowTags": []string{"demo"}}, func(r map[string]any) string {
			return fmt.Sprintf("session %s, screen %s, account %s, %s", str(r, "sessionId"), str(r, "state", "currentScreen"), str(r, "state", "accountAddress"), str(r, "state", "balance"))
		}},
		{"mm_describe_screen", nil, func(r map[string]any) string {
			ids, _ := r["testIds"].(map[string]any)["items"].([]any)
			nodes, _ := r["a11y"].(map[string]any)["nodes"].([]any)
			return fmt.Sprintf("%d testids, %d accessibility nodes", len(ids), len(nodes))
		}},
		{"mm_run_steps", map[string]any{"includeObservations": "none", "steps": []map[string]any{
			// Testids that exist in real MetaMask, so the demo runs on both.
			{"tool": "mm_navigate", "args": map[string]any{"screen": "settings"}},
			{"tool": "mm_navigate", "args": map[string]any{"screen": "home"}},
			{"tool": "mm_wait_for", "args": map[string]any{"testId": "eth-overview-send"}},
			{"tool": "mm_click", "args": map[string]any{"testId": "account-overview__activity-tab"}},
		}}, func(r map[string]any) string {
			return fmt.Sprintf("batch: %s of %s steps ok in %s ms", str(r, "summary", "succeeded"), str(r, "summary", "total"), str(r, "summary", "durationMs"))
		}},
		{"mm_get_state", nil, func(r map[string]any) string {
			return fmt.Sprintf("screen %s, network %s (chain %s), balance %s", str(r, "state", "currentScreen"), str(r, "state", "networkName"), str(r, "state", "chainId"), str(r, "state", "balance"))
		}},
		{"mm_screenshot", map[string]any{"name": "mmcp-demo-home"}, func(r map[string]any) string {
			return fmt.Sprintf("saved %s (%sx%s)", str(r, "path"), str(r, "width"), str(r, "height"))
		}},
		{"mm_knowledge_summarize", nil, func(r map[string]any) string {
			return fmt.Sprintf("knowledge store: %s steps recorded", str(r, "stepCount"))
		}},
		{"mm_cleanup", nil, func(r map[string]any) string { return "cleaned up: " + str(r, "cleanedUp") }},
	}
	failed := false
	for i, s := range steps {
		start := time.Now()
		env, err := callEnvelope(ctx, c, s.tool, s.args)
		if err != nil {
			fmt.Fprintf(stdout, "%d. %-24s ERROR %v\n", i+1, s.tool, err)
			failed = true
			break
		}
		if ok, _ := env["ok"].(bool); !ok {
			e, _ := json.Marshal(env["error"])
			fmt.Fprintf(stdout, "%d. %-24s FAILED %s\n", i+1, s.tool, e)
			failed = true
			if s.tool != "mm_cleanup" {
				_, _ = callEnvelope(ctx, c, "mm_cleanup", nil)
			}
			break
		}
		res, _ := env["result"].(map[string]any)
		fmt.Fprintf(stdout, "%d. %-24s ok  %5d ms  %s\n", i+1, s.tool, time.Since(start).Milliseconds(), s.show(res))
	}
	if failed {
		fmt.Fprintln(stdout, "mmcp demo: FAILED")
		return 1
	}
	fmt.Fprintln(stdout, "mmcp demo: ok")
	return 0
}

// callEnvelope calls a tool and decodes its envelope as a map.
func callEnvelope(ctx context.Context, c *mcpclient.Client, tool string, args map[string]any) (map[string]any, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if args == nil {
		args = map[string]any{}
	}
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	if _, err := client.DecodeEnvelope(res); err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(client.Text(res)), &env); err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	return env, nil
}
