package redact

import (
	"sort"
	"strings"
)

// Args returns a copy of a tool call's arguments safe to store or log, and
// the secret strings it withheld (so that echoes of them can be scrubbed
// from results and errors with Scrub):
//
//   - the value under a secret-named key is withheld, at any depth;
//   - the typed text (TextKey) is withheld at any depth, except the
//     top-level one when keepText is true (the host established that the
//     field it went into is harmless);
//   - every other string goes through Mask.
func Args(args map[string]any, keepText bool) (map[string]any, []string) {
	if args == nil {
		return nil, nil
	}
	var w withheld
	out := make(map[string]any, len(args))
	for k, v := range args {
		if k == TextKey && keepText && !SecretName(k) {
			out[k] = w.value(v)
			continue
		}
		out[k] = w.field(k, v)
	}
	return out, w.secrets
}

type withheld struct{ secrets []string }

// field sanitizes the value v found under key k.
func (w *withheld) field(k string, v any) any {
	if k == TextKey || SecretName(k) {
		w.collect(v)
		if v == nil {
			return nil
		}
		return Placeholder(v)
	}
	return w.value(v)
}

// value sanitizes a value under a harmless key.
func (w *withheld) value(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, vv := range t {
			out[k] = w.field(k, vv)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, vv := range t {
			out[i] = w.value(vv)
		}
		return out
	case string:
		m := Mask(t)
		if m != t {
			w.secrets = append(w.secrets, t)
		}
		return m
	}
	return v
}

// collect remembers every string of a withheld value.
func (w *withheld) collect(v any) {
	switch t := v.(type) {
	case string:
		if t != "" {
			w.secrets = append(w.secrets, t)
		}
	case map[string]any:
		for _, vv := range t {
			w.collect(vv)
		}
	case []any:
		for _, vv := range t {
			w.collect(vv)
		}
	}
}

// MinScrubLen is the shortest withheld string Scrub masks inside other
// text: shorter ones would mangle unrelated text.
const MinScrubLen = 4

// Scrub masks every withheld string in s (a result, an error message a
// server echoed a value into), then the secrets Mask detects.
func Scrub(s string, secrets []string) string {
	// Longest first, so that a secret containing another is masked whole.
	sorted := append([]string(nil), secrets...)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, sec := range sorted {
		if len(sec) >= MinScrubLen {
			s = strings.ReplaceAll(s, sec, Placeholder(sec))
		}
	}
	return Mask(s)
}

// ScrubValue applies Scrub to every string in v (a decoded JSON value) and
// returns the copy.
func ScrubValue(v any, secrets []string) any {
	switch t := v.(type) {
	case string:
		return Scrub(t, secrets)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, vv := range t {
			if SecretName(k) {
				out[k] = Placeholder(vv)
				continue
			}
			out[k] = ScrubValue(vv, secrets)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, vv := range t {
			out[i] = ScrubValue(vv, secrets)
		}
		return out
	}
	return v
}
