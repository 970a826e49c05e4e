package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/plugins/fixture"
	"github.com/mmcp-dev/mmcp/sdk"
)

// fakeCheckout makes a test wallet workspace a fake MetaMask checkout: the
// named fake builder from plugins/fixture/testdata (run with node by the
// fixture plugin) and a node_modules directory.
func fakeCheckout(t *testing.T, name string) string {
	t.Helper()
	ws := walletWorkspace(t)
	src := filepath.Join(repoRoot(), "plugins", "fixture", "testdata", "checkouts", name)
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err == nil {
			err = os.MkdirAll(filepath.Join(ws, filepath.Dir(rel)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(ws, rel), b, 0o644)
		}
		return err
	})
	if err == nil {
		err = os.Mkdir(filepath.Join(ws, "node_modules"), 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestWorkspaceFixtureBuilder: with a checkout providing a fixture builder,
// mm_launch serves the builder's state (the wallet unlocks it) and its
// prerequisites say so; with the builder failing, mm_launch answers an
// error naming the builder and its output.
func TestWorkspaceFixtureBuilder(t *testing.T) {
	ws := fakeCheckout(t, "ok")
	// The fake builder's default state: a real one, which it marks.
	base, err := fixture.New(nil).DefaultState(context.Background(), sdk.DefaultStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "test", "e2e", "fixtures", "default-fixture.json"), base.State, 0o644); err != nil {
		t.Fatal(err)
	}
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}})
	var res struct {
		State struct {
			CurrentScreen string
			IsUnlocked    bool
		}
		Prerequisites []struct{ Step, Description string }
	}
	must(t, h.Call("mm_launch", map[string]any{"stateMode": "default"})).Decode(t, &res)
	if res.State.CurrentScreen != "home" || !res.State.IsUnlocked {
		t.Fatalf("the wallet did not come up on the builder's state: %+v", res.State)
	}
	var fixtureStep string
	for _, p := range res.Prerequisites {
		if p.Step == "fixture" {
			fixtureStep = p.Description
		}
	}
	if !strings.Contains(fixtureStep, "source: workspace test/e2e/fixtures/fixture-builder.js") {
		t.Fatalf("prerequisites do not name the workspace builder: %+v", res.Prerequisites)
	}
	// The fixture server is where the step says (12345, or a free port
	// when another process holds 12345, as TestMain does).
	_, servedAt, _ := strings.Cut(fixtureStep, "served at http://localhost:")
	resp, err := http.Get("http://127.0.0.1:" + servedAt + "/state.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(served), "the fake checkout") || strings.Contains(string(served), fixture.MetaSource) {
		t.Fatalf("the fixture server does not serve the builder's state: %.300s", served)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
	h.Close()

	failing := fakeCheckout(t, "failing")
	h = startHost(t, HostOptions{Repo: failing, Args: []string{"--headless"}})
	env := h.Call("mm_launch", map[string]any{"stateMode": "default"})
	wantCode(t, env, "MM_LAUNCH_FAILED")
	if !strings.Contains(env.Error.Message, "test/e2e/fixture-builder.js") || !strings.Contains(env.Error.Message, "fake failure") ||
		env.Error.Details["step"] != "fixture" || !strings.Contains(jsonOf(env.Error.Details["tail"]), "loading constants") {
		t.Fatalf("failing builder: %s %v", env.Error.Message, env.Error.Details)
	}
}
