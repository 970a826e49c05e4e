package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// ManifestFile is the file, under os.UserCacheDir()/mmcp, that keeps each
// plugin's description from its last start (DefaultManifestCache).
const ManifestFile = "plugin-manifests.json"

// DefaultManifestCache is where a host keeps the plugins' descriptions
// ("" when the system has no cache directory: every plugin then starts
// before the host serves).
func DefaultManifestCache() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "mmcp", ManifestFile)
}

// manifestLimit bounds the cache: the entries used last are kept.
const manifestLimit = 64

// manifests keeps each plugin's description (name, version, capabilities,
// tools and their schemas; nothing else, no settings) from its last start,
// one entry per binary and settings, valid while the binary stays (size,
// modification time, pin). A plugin is described before it is configured,
// so its description does not depend on the workspace: a host started in
// any directory lists the tools of plugins an earlier host started at
// once, and starts them behind its first answer. Any change of the binary
// or its settings is a miss, and that plugin starts before the host
// serves, as without the cache.
type manifests struct {
	path string

	mu      sync.Mutex
	entries map[string]manifest
	dirty   bool
}

// manifest is one cache entry.
type manifest struct {
	Fingerprint string                 `json:"fingerprint"`
	Used        time.Time              `json:"used"`
	Desc        pluginhost.Description `json:"desc"`
}

// loadManifests reads the cache at path; a missing or unreadable file is
// an empty cache ("" for none at all).
func loadManifests(path string) *manifests {
	c := &manifests{path: path, entries: map[string]manifest{}}
	if path == "" {
		return c
	}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &c.entries)
		if c.entries == nil {
			c.entries = map[string]manifest{}
		}
	}
	return c
}

// manifestKey is the cache entry and fingerprint of spec s, false when s
// cannot be cached (a reattached plugin, a binary that cannot be read).
func manifestKey(s Spec) (key, fingerprint string, ok bool) {
	if s.Path == "" || s.Reattach {
		return "", "", false
	}
	fi, err := os.Stat(s.Path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", "", false
	}
	settings := sha256.Sum256(s.Settings)
	return s.Path + "|" + hex.EncodeToString(settings[:8]), fmt.Sprintf("%d|%d|%s", fi.Size(), fi.ModTime().UnixNano(), s.SHA256), true
}

// get answers the description cached for spec s.
func (c *manifests) get(s Spec) (pluginhost.Description, bool) {
	key, fp, ok := manifestKey(s)
	if !ok || c.path == "" {
		return pluginhost.Description{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.Fingerprint != fp {
		return pluginhost.Description{}, false
	}
	e.Used = time.Now().UTC()
	c.entries[key], c.dirty = e, true
	return e.Desc, true
}

// put records d for spec s.
func (c *manifests) put(s Spec, d pluginhost.Description) {
	key, fp, ok := manifestKey(s)
	if !ok || c.path == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key], c.dirty = manifest{Fingerprint: fp, Used: time.Now().UTC(), Desc: d}, true
}

// save writes the cache when it changed, keeping the manifestLimit entries
// used last: a private file, replaced at once (hosts that start together
// each write a whole file; the last wins).
func (c *manifests) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path == "" || !c.dirty {
		return nil
	}
	if len(c.entries) > manifestLimit {
		keys := make([]string, 0, len(c.entries))
		for k := range c.entries {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return c.entries[keys[i]].Used.After(c.entries[keys[j]].Used) })
		for _, k := range keys[manifestLimit:] {
			delete(c.entries, k)
		}
	}
	b, err := json.Marshal(c.entries)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ManifestFile+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	c.dirty = false
	return nil
}
