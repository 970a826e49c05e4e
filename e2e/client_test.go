package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// logLines is a concurrency-safe JSONL sink.
type logLines struct{ testutil.Buffer }

// phases returns "name:phase" per logged line.
func (l *logLines) phases(t *testing.T) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m["_phase"].(string))
	}
	return out
}

// failingClose is the mmcp adapter with a close that fails.
type failingClose struct{ client.MMCPAdapter }

func (failingClose) Close(context.Context, *mcpclient.Client, string) error {
	return errors.New("browser already gone")
}

func (failingClose) HasSession(mcp.Tool) bool { return false }

// TestClientAgainstRealHost drives the spawned host through client:
// serialized calls, the parallel opt-in, the closed guard, a failing adapter
// close that still ends the host, and drift when a plugin adds a tool.
func TestClientAgainstRealHost(t *testing.T) {
	ws := workspace(t, "build-ok")
	pp := t.TempDir()
	installPlugin(t, filepath.Join(testPlugins, "testplugin"), pp, "slow")
	cmd := client.Command{Path: filepath.Join(bin, "mmcp"), Args: []string{"--repo", ws}, Env: []string{"MMCP_PLUGIN_PATH=" + pp, "MMCP_TRUST_WORKSPACE_PLUGINS=1"}}
	ctx := context.Background()
	log := &logLines{}
	h, err := client.Connect(ctx, client.Options{Command: cmd, Log: client.LoggerOptions{Writer: log}})
	if err != nil {
		t.Fatal(err)
	}
	baseHash := h.Hash()

	// Serialized: three concurrent calls, each one's before/after pair
	// completes before the next starts.
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.CallEnvelope(ctx, "slow_sleep", map[string]any{"ms": 150}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := strings.Join(log.phases(t), ","); got != "before,after,before,after,before,after" {
		t.Fatalf("serialized calls interleaved: %s", got)
	}
	// Parallel opt-in: both requests leave before either answer arrives.
	log.Reset()
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.CallEnvelope(ctx, "slow_sleep", map[string]any{"ms": 300}, client.Parallel()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := strings.Join(log.phases(t), ","); got != "before,before,after,after" {
		t.Fatalf("parallel calls did not overlap: %s", got)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, "mm_knowledge_last", nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("second close: %v", err)
	}

	// An adapter whose close fails: Close reports it, the host still exits.
	_, err = client.Connect(ctx, client.Options{Command: cmd, Adapter: failingClose{client.MMCPAdapter{LaunchArgs: map[string]any{"autoBuild": false}}}, Log: client.LoggerOptions{Writer: log}})
	if err == nil || !strings.Contains(err.Error(), "MM_LAUNCH_FAILED") {
		t.Fatalf("the adapter's open (mm_launch without a build) should fail with MM_LAUNCH_FAILED: %v", err)
	}
	h, err = client.Connect(ctx, client.Options{Command: cmd, Log: client.LoggerOptions{Writer: log}})
	if err != nil {
		t.Fatal(err)
	}
	inv := client.NewInvoker(h.Client(), client.InvokerOptions{Adapter: failingClose{}, Tools: h.Tools()})
	if err := inv.Close(ctx); err == nil || !strings.Contains(err.Error(), "browser already gone") {
		t.Fatalf("failing adapter close: %v", err)
	}
	if !eventually(10*time.Second, func() bool { return len(pidsMatching("--repo", ws)) == 0 }) {
		t.Fatalf("host left behind after a failing adapter close: %v", pidsMatching("--repo", ws))
	}

	// Drift: a plugin adds a tool; the handle baked with the old hash fails
	// on connect, on the client it opened.
	installPlugin(t, filepath.Join(bin, "examples", "mmcp-plugin-hello"), filepath.Join(ws, ".mmcp", "plugins"), "hello")
	_, err = client.Connect(ctx, client.Options{Command: cmd, ExpectedHash: baseHash, Log: client.LoggerOptions{Writer: log}})
	if !errors.Is(err, client.ErrRegistryDrift) || !strings.Contains(err.Error(), "mmcp gen") {
		t.Fatalf("drift not detected: %v", err)
	}
	if !eventually(10*time.Second, func() bool { return len(pidsMatching("--repo", ws)) == 0 }) {
		t.Fatalf("host left behind after drift: %v", pidsMatching("--repo", ws))
	}
}
