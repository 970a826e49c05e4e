package sdk

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Configured is what a plugin keeps of Configure: the Config and its own
// settings section decoded into S. Safe for concurrent use; the zero value
// holds a zero Config and zero settings.
//
//	type Plugin struct{ conf sdk.Configured[Settings]; ... }
//
//	func (p *Plugin) Configure(_ context.Context, cfg sdk.Config) error {
//		return p.conf.Set("mine", cfg, Settings.check)
//	}
type Configured[S any] struct {
	mu       sync.RWMutex
	cfg      Config
	settings S
}

// Set decodes cfg.Settings strictly into a fresh S (an unknown key is
// MM_INVALID_CONFIG naming the plugin and the keys it allows), lets check
// (when not nil) refuse or complete it, and keeps both. On an error
// nothing changes.
func (c *Configured[S]) Set(plugin string, cfg Config, check func(*S) error) error {
	var s S
	if err := DecodeSettings(plugin, cfg.Settings, &s); err != nil {
		e := AsError(err)
		if keys := settingKeys(reflect.TypeOf(s)); len(keys) > 0 {
			e.Message += "; allowed keys are " + strings.Join(keys, ", ")
		}
		return e
	}
	if check != nil {
		if err := check(&s); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg, c.settings = cfg, s
	return nil
}

// Get returns the Config and the settings last Set.
func (c *Configured[S]) Get() (Config, S) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cfg, c.settings
}

// settingKeys lists the JSON keys of a settings struct, sorted.
func settingKeys(t reflect.Type) []string {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			keys = append(keys, settingKeys(f.Type)...) // its keys are the outer's, as encoding/json reads them
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
	}
	sort.Strings(keys)
	return keys
}
