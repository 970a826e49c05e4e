package codegen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/client/internal/testserver"
)

func TestGenerateAgainstServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts := client.Options{
		Command: client.Command{Path: exe, Env: []string{testserver.EnvServe + "=1"}},
		// Generate must not open a session: this one would fail to close.
		Adapter:    client.KeyAdapter{OpenTool: "session_open", CloseTool: "session_close"},
		SessionKey: "boom",
	}
	in := Input{Package: "gen", Prefix: "mm", Generated: time.Now(), Command: "go generate ./..."}
	path := filepath.Join(t.TempDir(), "tools_gen.go")
	ctx := context.Background()

	var out bytes.Buffer
	if changed, err := Generate(ctx, opts, in, path, &out); err != nil || !changed {
		t.Fatalf("first Generate: changed=%v err=%v", changed, err)
	}
	if !strings.HasPrefix(out.String(), "Generated ") {
		t.Fatalf("output %q", out.String())
	}
	src, _ := os.ReadFile(path)
	if !strings.Contains(string(src), "func (x NavTools) Goto(") {
		t.Fatalf("generated file lacks nav.goto:\n%s", src)
	}

	out.Reset()
	in.Generated = in.Generated.Add(time.Minute)
	if changed, err := Generate(ctx, opts, in, path, &out); err != nil || changed {
		t.Fatalf("rerun: changed=%v err=%v", changed, err)
	}
	if out.String() != "No changes.\n" {
		t.Fatalf("rerun output %q", out.String())
	}

	opts.Command.Env = append(opts.Command.Env, testserver.EnvExtraTool+"=1")
	out.Reset()
	if changed, err := Generate(ctx, opts, in, path, &out); err != nil || !changed {
		t.Fatalf("after registry change: changed=%v err=%v", changed, err)
	}
}
