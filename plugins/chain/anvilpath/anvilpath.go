// Package anvilpath finds the Anvil binary the way the chain plugin does,
// for the plugin and for mmcp doctor (which must not link the plugin). It
// imports nothing but sdk.
package anvilpath

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/sdk"
)

// installHint tells a user how to get Anvil.
const installHint = "install it with `npm i @foundry-rs/anvil-linux-amd64` (in the workspace or in mmcp's .tools), set $ANVIL_PATH, or set the chain plugin's anvilPath setting"

// Env is what Find needs from the process environment; tests replace it.
type Env struct {
	Getenv     func(string) string
	Executable func() (string, error)
	LookPath   func(string) (string, error)
}

// OSEnv is the process environment.
var OSEnv = Env{Getenv: os.Getenv, Executable: os.Executable, LookPath: exec.LookPath}

// Find returns the Anvil binary: the anvilPath setting, $ANVIL_PATH,
// <workspace>/node_modules/.bin/anvil, $MMCP_NODE_MODULES/.bin/anvil,
// <dir of the plugin binary>/../.tools/node_modules/.bin/anvil, then PATH.
// None found is MM_DEPENDENCIES_MISSING listing the places tried.
func Find(setting, workspace string, env Env) (string, error) {
	if setting != "" {
		p := setting
		if !filepath.IsAbs(p) && workspace != "" {
			p = filepath.Join(workspace, p)
		}
		if isExecutable(p) {
			return p, nil
		}
		return "", sdk.Errorf(sdk.CodeInvalidConfig, "anvilPath %q is not an executable file", p)
	}
	var tried []string
	try := func(p string) bool {
		if p == "" {
			return false
		}
		tried = append(tried, p)
		return isExecutable(p)
	}
	if p := env.Getenv(sdk.EnvAnvilPath); try(p) {
		return p, nil
	}
	if workspace != "" {
		if p := filepath.Join(workspace, "node_modules", ".bin", "anvil"); try(p) {
			return p, nil
		}
	}
	if nm := env.Getenv(sdk.EnvNodeModules); nm != "" {
		if p := filepath.Join(nm, ".bin", "anvil"); try(p) {
			return p, nil
		}
	}
	if exe, err := env.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "..", ".tools", "node_modules", ".bin", "anvil")
		if try(filepath.Clean(p)) {
			return filepath.Clean(p), nil
		}
	}
	if p, err := env.LookPath("anvil"); err == nil {
		return p, nil
	}
	tried = append(tried, "$PATH")
	return "", sdk.Errorf(sdk.CodeDependenciesMissing, "anvil not found; %s", installHint).
		WithDetails(map[string]any{"tried": tried})
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
