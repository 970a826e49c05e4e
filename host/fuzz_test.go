package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

var (
	fuzzOnce sync.Once
	fuzzHost *Host
	fuzzWS   string
	fuzzErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fuzzHost != nil {
		fuzzHost.Close()
		_ = os.RemoveAll(fuzzWS)
	}
	os.Exit(code)
}

// fuzzTarget is a host with no plugins and no session on an empty
// workspace: every tool decodes and validates its input, then answers.
func fuzzTarget(t testing.TB) *Host {
	fuzzOnce.Do(func() {
		ws, err := os.MkdirTemp("", "mmcp-fuzz-")
		fuzzWS = ws
		if err != nil {
			fuzzErr = err
			return
		}
		if fuzzErr = os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{}`), 0o644); fuzzErr != nil {
			return
		}
		h, err := New(config.Config{Repo: ws, LogLevel: "off", Chrome: "/nonexistent/chrome"})
		if err != nil {
			fuzzErr = err
			return
		}
		fuzzErr = h.Start(context.Background())
		fuzzHost = h
	})
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzHost
}

// FuzzToolInput sends arbitrary arguments to every built-in tool: each
// call answers an envelope with an MM_* code, never panics and never
// answers MM_INTERNAL_ERROR (a bad input is the caller's error, and says
// so). `go test` runs the seed corpus; `go test -fuzz FuzzToolInput ./host`
// explores.
func FuzzToolInput(f *testing.F) {
	seeds := []string{
		`{}`, `null`, `[]`, `"x"`, `1`, `{"bogus":1}`,
		`{"testId":""}`, `{"testId":"a","selector":"b"}`, `{"a11yRef":"e1"}`, `{"a11yRef":"x1"}`,
		`{"selector":"#pw","text":"correct horse battery staple"}`, `{"timeoutMs":-1}`, `{"timeoutMs":1e309}`,
		`{"screen":"home"}`, `{"url":"javascript:alert(1)"}`, `{"role":"dapp"}`, `{"action":"write"}`,
		`{"steps":[{"tool":"mm_click","args":{"testId":"x"}}]}`, `{"steps":[{"tool":"mm_run_steps"}]}`,
		`{"query":"` + strings.Repeat("a", 5000) + `"}`, `{"contractName":"hst","deployerOptions":{"fromPrivateKey":"0x12"}}`,
		`{"stateMode":"custom"}`, `{"fixture":{"data":1}}`, `{"name":"../../etc/passwd"}`,
		strings.Repeat(`{"a":`, 500) + `1` + strings.Repeat(`}`, 500),
	}
	for i := range 40 {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		h := fuzzTarget(t)
		all := h.Runner().Tools()
		name := all[int(tool)%len(all)].Name
		out := h.Runner().Run(context.Background(), tools.Request{Tool: name, Args: json.RawMessage(args)})
		env := out.Envelope
		if env.OK {
			return
		}
		if env.Error == nil || !strings.HasPrefix(env.Error.Code, "MM_") {
			t.Fatalf("%s %s: error without an MM_ code: %+v", name, args, env.Error)
		}
		if env.Error.Code == sdk.CodeInternal {
			t.Fatalf("%s %s: %s", name, args, env.Error.Message)
		}
	})
}
