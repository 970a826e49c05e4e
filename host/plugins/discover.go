package plugins

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// Prefix is the file name prefix of plugin binaries.
const Prefix = "mmcp-plugin-"

// Spec is one plugin binary to start (or attach to).
type Spec struct {
	// Name is the plugin name (the file name without Prefix).
	Name string `json:"name"`
	// Path is the binary's absolute path ("" for a reattached plugin).
	Path string `json:"path,omitempty"`
	// Source says which discovery rule found it.
	Source string `json:"source"`
	// SHA256 pins the binary's checksum (hex); empty means no pin.
	SHA256 string `json:"sha256,omitempty"`
	// Settings is the plugin's config section, passed to Configure.
	Settings []byte `json:"-"`
	// Reattach is set for MMCP_REATTACH_PLUGINS entries.
	Reattach bool `json:"reattach,omitempty"`
}

// ConfigEntry is one plugin of the config file.
type ConfigEntry struct {
	// Path of the binary, relative to the workspace or absolute.
	Path string `json:"path"`
	// SHA256 pins the binary (hex).
	SHA256 string `json:"sha256,omitempty"`
}

// Sources of discovery.
type Sources struct {
	// Reattach names the plugins of MMCP_REATTACH_PLUGINS.
	Reattach []string
	// Config are the config file's plugins by name.
	Config map[string]ConfigEntry
	// PluginPath are the MMCP_PLUGIN_PATH directories.
	PluginPath []string
	// Workspace is the workspace root.
	Workspace string
	// UserConfigDir is os.UserConfigDir() (may be "").
	UserConfigDir string
	// ExeDir is the host executable's directory.
	ExeDir string
}

// Discover lists the plugins to start, in the order of the package doc.
func Discover(src Sources, log hclog.Logger) []Spec {
	var out []Spec
	seen := map[string]string{}
	add := func(s Spec) {
		if prev, ok := seen[s.Name]; ok {
			log.Info("plugin shadowed", "name", s.Name, "path", s.Path, "source", s.Source, "winner", prev)
			return
		}
		seen[s.Name] = s.Source + " " + s.Path
		out = append(out, s)
	}
	for _, n := range src.Reattach {
		add(Spec{Name: n, Source: "MMCP_REATTACH_PLUGINS", Reattach: true})
	}
	names := make([]string, 0, len(src.Config))
	for n := range src.Config {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e := src.Config[n]
		p := e.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(src.Workspace, p)
		}
		add(Spec{Name: n, Path: p, Source: "config", SHA256: e.SHA256})
	}
	for _, d := range src.PluginPath {
		scanDir(d, "MMCP_PLUGIN_PATH", add)
	}
	if src.Workspace != "" {
		scanDir(filepath.Join(src.Workspace, ".mmcp", "plugins"), "workspace", add)
	}
	if src.UserConfigDir != "" {
		scanDir(filepath.Join(src.UserConfigDir, "mmcp", "plugins"), "user config", add)
	}
	if src.ExeDir != "" {
		scanDir(src.ExeDir, "host directory", add)
	}
	return out
}

// scanDir adds every executable mmcp-plugin-* file of dir, sorted by name.
func scanDir(dir, source string, add func(Spec)) {
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, Prefix) || strings.Contains(name, ".") {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Mode()&0o111 == 0 {
			continue
		}
		abs, _ := filepath.Abs(filepath.Join(dir, name))
		add(Spec{Name: strings.TrimPrefix(name, Prefix), Path: abs, Source: source})
	}
}
