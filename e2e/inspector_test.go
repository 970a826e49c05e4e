package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inspector runs the MCP Inspector CLI (@modelcontextprotocol/inspector,
// pinned in .tools) against a host it starts over stdio, decodes the JSON
// it prints and returns its exit code (non-zero for an isError result).
func inspector(t *testing.T, ws string, out any, args ...string) int {
	t.Helper()
	cli := filepath.Join(repoRoot(), ".tools", "node_modules", ".bin", "mcp-inspector")
	argv := append([]string{"--cli", filepath.Join(bin, "mmcp"), "--repo", ws, "--headless"}, args...)
	cmd := exec.Command(cli, argv...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdout, err := cmd.Output()
	code, stderr := 0, ""
	if ee, ok := err.(*exec.ExitError); ok {
		code, stderr = ee.ExitCode(), string(ee.Stderr)
	} else if err != nil {
		t.Fatalf("inspector %v: %v", args, err)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("inspector %v (exit %d) printed no JSON: %v\n%s\n%s", args, code, err, stdout, tail(stderr, 20))
	}
	return code
}

// TestMCPInspectorCLI: the MCP Inspector CLI, a client many people poke
// servers with, lists the tools with their exact schemas and calls one.
func TestMCPInspectorCLI(t *testing.T) {
	ws := walletWorkspace(t)
	var list struct {
		Tools []struct {
			Name        string
			InputSchema json.RawMessage
		}
	}
	if code := inspector(t, ws, &list, "--method", "tools/list"); code != 0 {
		t.Fatalf("tools/list exit %d", code)
	}
	var click json.RawMessage
	for _, tl := range list.Tools {
		if tl.Name == "mm_click" {
			click = tl.InputSchema
		}
	}
	want, err := os.ReadFile(filepath.Join(repoRoot(), "host", "schemas", "click.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, click, want) {
		t.Fatalf("mm_click schema as the Inspector received it:\n%s\nwant host/schemas/click.json:\n%s", click, want)
	}

	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if code := inspector(t, ws, &res, "--method", "tools/call", "--tool-name", "mm_knowledge_sessions", "--tool-arg", "limit=5"); code != 0 {
		t.Fatalf("tools/call exit %d", code)
	}
	if len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, `"ok":true`) || !strings.Contains(res.Content[0].Text, `"sessions":`) {
		t.Fatalf("tools/call answer %+v", res)
	}
	res.Content, res.IsError = nil, false
	inspector(t, ws, &res, "--method", "tools/call", "--tool-name", "mm_click", "--tool-arg", "bogus=1")
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "MM_INVALID_INPUT") {
		t.Fatalf("invalid input answer %+v", res)
	}
}

// sameJSON compares two JSON documents by value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
