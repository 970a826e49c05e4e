package contracts

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/sdk"
)

// nodeModulesDirs lists the node_modules directories to search, in order.
func (p *Plugin) nodeModulesDirs() []string {
	cfg, settings := p.conf.Get()
	ws, nm := cfg.Workspace, settings.NodeModules
	var dirs []string
	if nm != "" {
		if !filepath.IsAbs(nm) && ws != "" {
			nm = filepath.Join(ws, nm)
		}
		dirs = append(dirs, nm)
	}
	if ws != "" {
		dirs = append(dirs, filepath.Join(ws, "node_modules"))
	}
	if env := p.getenv(sdk.EnvNodeModules); env != "" {
		dirs = append(dirs, env)
	}
	if exe, err := p.executable(); err == nil {
		dirs = append(dirs, filepath.Clean(filepath.Join(filepath.Dir(exe), "..", ".tools", "node_modules")))
	}
	return dirs
}

// findPackageFile returns the first <dir>/<pkg>/<rel> that exists and the
// list of places tried.
func findPackageFile(dirs []string, pkg string, rels ...string) (string, []string) {
	var tried []string
	for _, d := range dirs {
		base := filepath.Join(d, pkg)
		tried = append(tried, base)
		ok := true
		for _, r := range rels {
			if _, err := os.Stat(filepath.Join(base, r)); err != nil {
				ok = false
				break
			}
		}
		if ok {
			return base, tried
		}
	}
	return "", tried
}

// packageVersion reads the version of the package at dir ("" if unknown).
func packageVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var v struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(b, &v)
	return v.Version
}
