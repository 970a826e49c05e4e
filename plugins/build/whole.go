package build

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// maxManifest bounds the manifest.json the watch reads.
const maxManifest = 1 << 20

// incomplete says why the unpacked extension in dir is not whole yet, ""
// when it is: manifest.json is a regular file that parses, and every
// file it names exists as a regular file (the background service worker,
// page or scripts; content scripts' js and css; the action's popup and
// the other pages it names; icons; the default locale's messages.json;
// web_accessible_resources that are plain paths, source maps and
// patterns left out).
func incomplete(dir string) string {
	raw, err := readRegular(filepath.Join(dir, "manifest.json"), maxManifest)
	if err != nil {
		return fmt.Sprintf("%s has no manifest.json yet (%v)", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Sprintf("%s/manifest.json does not parse yet: %v", dir, err)
	}
	var missing []string
	for _, f := range m.files() {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil || !st.Mode().IsRegular() {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	const show = 5
	more := ""
	if len(missing) > show {
		more = fmt.Sprintf(" and %d more", len(missing)-show)
		missing = missing[:show]
	}
	return fmt.Sprintf("%s lacks %s%s, named by its manifest.json", dir, strings.Join(missing, ", "), more)
}

// readRegular reads file p when it is a regular file of at most max
// bytes; never blocks on a FIFO or reads a device.
func readRegular(p string, max int64) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("larger than %d bytes", max)
	}
	return b, err
}

// manifest is what of a manifest.json names files.
type manifest struct {
	DefaultLocale string `json:"default_locale"`
	Background    struct {
		ServiceWorker string   `json:"service_worker"`
		Page          string   `json:"page"`
		Scripts       []string `json:"scripts"`
	} `json:"background"`
	ContentScripts []struct {
		JS  []string `json:"js"`
		CSS []string `json:"css"`
	} `json:"content_scripts"`
	Action        popup                 `json:"action"`
	BrowserAction popup                 `json:"browser_action"`
	PageAction    popup                 `json:"page_action"`
	OptionsPage   string                `json:"options_page"`
	OptionsUI     struct{ Page string } `json:"options_ui"`
	DevtoolsPage  string                `json:"devtools_page"`
	SidePanel     struct {
		DefaultPath string `json:"default_path"`
	} `json:"side_panel"`
	Overrides map[string]string `json:"chrome_url_overrides"`
	Icons     json.RawMessage   `json:"icons"`
	// Resources are MV2's list of paths or MV3's list of {resources}.
	Resources []json.RawMessage `json:"web_accessible_resources"`
}

type popup struct {
	DefaultPopup string          `json:"default_popup"`
	DefaultIcon  json.RawMessage `json:"default_icon"`
}

// files lists the plain local paths m names, sorted, without duplicates.
func (m *manifest) files() []string {
	set := map[string]bool{}
	add := func(ps ...string) {
		for _, p := range ps {
			p = strings.TrimPrefix(strings.TrimSpace(p), "/")
			if i := strings.IndexAny(p, "?#"); i >= 0 {
				p = p[:i]
			}
			if p == "" || strings.Contains(p, "*") || strings.Contains(p, "://") || strings.HasSuffix(p, ".map") {
				continue
			}
			p = path.Clean(p)
			if p == ".." || strings.HasPrefix(p, "../") {
				continue
			}
			set[p] = true
		}
	}
	add(m.Background.ServiceWorker, m.Background.Page)
	add(m.Background.Scripts...)
	for _, cs := range m.ContentScripts {
		add(cs.JS...)
		add(cs.CSS...)
	}
	for _, a := range []popup{m.Action, m.BrowserAction, m.PageAction} {
		add(a.DefaultPopup)
		add(icons(a.DefaultIcon)...)
	}
	add(m.OptionsPage, m.OptionsUI.Page, m.DevtoolsPage, m.SidePanel.DefaultPath)
	for _, p := range m.Overrides {
		add(p)
	}
	add(icons(m.Icons)...)
	if m.DefaultLocale != "" {
		add("_locales/" + m.DefaultLocale + "/messages.json")
	}
	for _, r := range m.Resources {
		var p string
		if json.Unmarshal(r, &p) == nil {
			add(p)
			continue
		}
		var group struct{ Resources []string }
		if json.Unmarshal(r, &group) == nil {
			add(group.Resources...)
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// icons are the paths of an icon field: a path or a map of size to path.
func icons(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var bySize map[string]string
	_ = json.Unmarshal(raw, &bySize)
	var out []string
	for _, p := range bySize {
		out = append(out, p)
	}
	return out
}
