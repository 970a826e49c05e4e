package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmcp-dev/mmcp/host/settings"

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
	// Refused says why a plugin of the workspace is not run (not pinned
	// and not trusted, or outside the workspace); such a plugin shadows
	// nothing.
	Refused string `json:"refused,omitempty"`
}

// ConfigEntry is one plugin of the config file.
type ConfigEntry = settings.PluginEntry

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
	// TrustWorkspace runs the workspace's plugins (.mmcp/plugins and
	// config paths) without a sha256 pin: --trust-workspace-plugins.
	TrustWorkspace bool
}

// TrustHint says how to let a workspace plugin run.
const TrustHint = `pin it with its "sha256" in the config's plugins entry (sha256sum the binary), or pass --trust-workspace-plugins (MMCP_TRUST_WORKSPACE_PLUGINS=1)`

// Discover lists the plugins to start, in the order of the package doc.
func Discover(src Sources, log hclog.Logger) []Spec {
	var out []Spec
	seen := map[string]string{}
	add := func(s Spec) {
		if s.Refused != "" {
			log.Warn("workspace plugin not run", "name", s.Name, "path", s.Path, "reason", s.Refused)
			out = append(out, s)
			return
		}
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
		if e.Path == "" {
			continue // a pin (or settings) for a plugin found elsewhere
		}
		p := e.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(src.Workspace, p)
		}
		add(src.trust(Spec{Name: n, Path: p, Source: "config", SHA256: e.SHA256}))
	}
	for _, d := range src.PluginPath {
		scanDir(d, "MMCP_PLUGIN_PATH", add)
	}
	if src.Workspace != "" {
		scanDir(filepath.Join(src.Workspace, ".mmcp", "plugins"), "workspace", func(s Spec) {
			s.SHA256 = src.Config[s.Name].SHA256
			add(src.trust(s))
		})
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

// trust decides whether a workspace plugin (config path or .mmcp/plugins)
// may run: its binary must be inside the workspace, and pinned by sha256 or
// trusted with TrustWorkspace. Opening a checkout never runs its code
// without that consent.
func (src Sources) trust(s Spec) Spec {
	if !within(src.Workspace, s.Path) {
		s.Refused = fmt.Sprintf("%s is outside the workspace %s: plugins of the config must live in the workspace (install others in MMCP_PLUGIN_PATH)", s.Path, src.Workspace)
		return s
	}
	if s.SHA256 == "" && !src.TrustWorkspace {
		s.Refused = "untrusted workspace plugin: " + TrustHint
	}
	return s
}

// within reports whether path (symlinks resolved) is inside dir.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A missing binary: judge the path as written.
		p = filepath.Clean(path)
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
