package anvilpath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

func TestFindAnvilOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	envPath := mk("env/anvil")
	ws := filepath.Join(dir, "ws")
	wsBin := mk("ws/node_modules/.bin/anvil")
	nmBin := mk("nm/.bin/anvil")
	exeBin := mk("install/.tools/node_modules/.bin/anvil")
	pathBin := mk("path/anvil")

	vars := map[string]string{sdk.EnvAnvilPath: envPath, sdk.EnvNodeModules: filepath.Join(dir, "nm")}
	env := Env{
		Getenv:     func(k string) string { return vars[k] },
		Executable: func() (string, error) { return filepath.Join(dir, "install", "bin", "mmcp-plugin-chain"), nil },
		LookPath:   func(string) (string, error) { return pathBin, nil },
	}
	steps := []struct {
		want   string
		remove func()
	}{
		{envPath, func() { delete(vars, sdk.EnvAnvilPath) }},
		{wsBin, func() { os.Remove(wsBin) }},
		{nmBin, func() { delete(vars, sdk.EnvNodeModules) }},
		{exeBin, func() { os.Remove(exeBin) }},
		{pathBin, func() { env.LookPath = func(string) (string, error) { return "", errors.New("not found") } }},
	}
	for _, s := range steps {
		got, err := Find("", ws, env)
		if err != nil || got != s.want {
			t.Fatalf("Find = %q, %v; want %q", got, err, s.want)
		}
		s.remove()
	}
	_, err := Find("", ws, env)
	e := testutil.WantCode(t, err, sdk.CodeDependenciesMissing)
	if !strings.Contains(e.Message, "npm i @foundry-rs/anvil-linux-amd64") {
		t.Fatalf("message does not say how to install: %s", e.Message)
	}

	// The setting wins, relative to the workspace; a wrong one is a config error.
	if got, err := Find("../path/anvil", ws, env); err != nil || got != filepath.Join(ws, "../path/anvil") {
		t.Fatalf("setting: %q, %v", got, err)
	}
	_, err = Find("nope/anvil", ws, env)
	testutil.WantCode(t, err, sdk.CodeInvalidConfig)
}
