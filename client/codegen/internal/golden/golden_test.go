package golden_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/mmcp-dev/mmcp/client"
	"github.com/mmcp-dev/mmcp/client/clienttest"
	"github.com/mmcp-dev/mmcp/client/codegen/internal/golden"
	"github.com/mmcp-dev/mmcp/client/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.MaybeServe()
	os.Exit(m.Run())
}

func ptr[T any](v T) *T { return &v }

// The generated handle connects to the live server (its registry hashes
// to RegistryHash) and its typed methods send exactly the set fields.
func TestGeneratedHandleCallsLiveServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := golden.Wrap(clienttest.Connect(t, client.Options{
		Command:      client.Command{Path: exe, Env: []string{testserver.EnvServe + "=1"}},
		Adapter:      client.KeyAdapter{OpenTool: "session_open", CloseTool: "session_close"},
		SessionKey:   "s1",
		ExpectedHash: golden.RegistryHash,
	}))
	ctx := context.Background()
	cases := []struct {
		name string
		call func() (string, error)
		want map[string]any
	}{
		{"optional fields left out", func() (string, error) {
			res, err := h.Nav.Goto(ctx, golden.NavGotoArgs{URL: "https://example.test"})
			return client.Text(res), err
		}, map[string]any{"url": "https://example.test", "sessionName": "s1"}},
		{"optional field set", func() (string, error) {
			res, err := h.Root.Echo(ctx, golden.EchoArgs{Text: ptr("hi")})
			return client.Text(res), err
		}, map[string]any{"text": "hi"}},
		{"required zero value sent, nested types", func() (string, error) {
			res, err := h.Root.KnowledgeLast(ctx, golden.KnowledgeLastArgs{
				Filters: []golden.KnowledgeLastArgsFiltersItem{{Tool: "mm_click"}},
				Ports:   &golden.KnowledgeLastArgsPorts{Anvil: ptr(int64(8545))},
				Labels:  map[string]string{"a": "b"},
			})
			env, derr := client.DecodeEnvelope(res)
			if derr != nil {
				return "", derr
			}
			return string(env.Result), err
		}, map[string]any{
			"limit":   float64(0),
			"filters": []any{map[string]any{"tool": "mm_click"}},
			"ports":   map[string]any{"anvil": float64(8545)},
			"labels":  map[string]any{"a": "b"},
		}},
		{"typed $ref fields: a oneOf as its string", func() (string, error) {
			res, err := h.Scoped.Search(ctx, golden.ScopedSearchArgs{Scope: &golden.Scope{String: ptr("all")}, Filters: &golden.Filters{Tag: ptr("send")}})
			env, derr := client.DecodeEnvelope(res)
			if derr != nil {
				return "", derr
			}
			return string(env.Result), err
		}, map[string]any{"scope": "all", "filters": map[string]any{"tag": "send"}}},
		{"typed $ref fields: a oneOf as its object, shared by another tool", func() (string, error) {
			res, err := h.Scoped.Sessions(ctx, golden.ScopedSessionsArgs{Scope: &golden.Scope{Object: &golden.ScopeObject{SessionID: "mm-1"}}})
			env, derr := client.DecodeEnvelope(res)
			if derr != nil {
				return "", derr
			}
			return string(env.Result), err
		}, map[string]any{"scope": map[string]any{"sessionId": "mm-1"}}},
		{"no-argument method", func() (string, error) {
			res, err := h.Nav.RunFile(ctx)
			return client.Text(res), err
		}, map[string]any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, err := c.call()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("server got %v, want %v", got, c.want)
			}
		})
	}
}
