package session

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// A rebuild that changed no file the extension's background loads (the
// manifest, the service worker and the scripts it imports, the content
// scripts) needs no restart of the background: the extension's pages read
// the rebuilt files when they load. On MetaMask that spares the restart of
// the LavaMoat-wrapped background and the real vault's unlock (12-15 s
// under load) for a UI or locale edit. The session keeps the print of the
// background files it runs (backgroundPrint) and compares it with the
// output's after each rebuild.

// bgPrint maps each file the background loads (slash path under the
// extension directory) to a hash of its content.
type bgPrint map[string]uint64

// printSeed seeds the prints' hashes; prints are compared within one host.
var printSeed = maphash.MakeSeed()

// backgroundPrint is the print of the background files of the unpacked
// extension in dir. An extension whose background it cannot tell (no
// manifest, an MV2 background page) has none (nil, with the reason).
func backgroundPrint(dir string) (bgPrint, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m struct {
		Background struct {
			ServiceWorker string   `json:"service_worker"`
			Scripts       []string `json:"scripts"`
			Page          string   `json:"page"`
		} `json:"background"`
		ContentScripts []struct {
			JS  []string `json:"js"`
			CSS []string `json:"css"`
		} `json:"content_scripts"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	if m.Background.Page != "" {
		return nil, fmt.Errorf("a background page's scripts are not read")
	}
	p := bgPrint{"manifest.json": maphash.Bytes(printSeed, raw)}
	add := func(rel string) error {
		rel = path.Clean(strings.TrimPrefix(rel, "/"))
		if _, ok := p[rel]; ok || rel == "." || strings.HasPrefix(rel, "../") {
			return nil
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		p[rel] = maphash.Bytes(printSeed, b)
		return nil
	}
	for _, cs := range m.ContentScripts {
		for _, f := range append(append([]string{}, cs.JS...), cs.CSS...) {
			if err := add(f); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range m.Background.Scripts {
		if err := add(f); err != nil {
			return nil, err
		}
	}
	if sw := m.Background.ServiceWorker; sw != "" {
		if err := add(sw); err != nil {
			return nil, err
		}
		for _, f := range imported(dir, sw) {
			if err := add(f); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// scriptName is a quoted script path, or a comma-separated list of them
// (MetaMask's app-init.js names its bundles as "../common-0.js,...").
var scriptName = regexp.MustCompile(`["'\x60]([^"'\x60\s]+\.js)["'\x60]`)

// imported lists the files of dir the service worker sw names as scripts
// (importScripts' arguments, a list it loads them from, a script it
// registers in pages), relative to its own directory or to dir; names of
// no file are left out.
func imported(dir, sw string) []string {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(sw)))
	if err != nil {
		return nil
	}
	base := path.Dir(sw)
	var out []string
	for _, mt := range scriptName.FindAllSubmatch(b, -1) {
		for _, name := range strings.Split(string(mt[1]), ",") {
			for _, rel := range []string{path.Join(base, name), path.Clean(strings.TrimPrefix(name, "/"))} {
				if rel == "." || strings.HasPrefix(rel, "../") {
					continue
				}
				if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil && st.Mode().IsRegular() {
					out = append(out, rel)
				}
			}
		}
	}
	return out
}

// same reports whether two prints name the same files with the same
// content (a nil print is never the same).
func (p bgPrint) same(q bgPrint) bool {
	return p != nil && q != nil && maps.Equal(p, q)
}
