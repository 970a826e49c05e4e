package flows

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// minHidden is the shortest variable value put back as ${VAR} in free
// text: a shorter one ("1", "yes") would rewrite unrelated words.
const minHidden = 4

// Placeholders are the variables a flow file uses, with their values in
// this process's environment: what the drift loop answers the agent
// names a variable, never its value.
type Placeholders []placeholder

type placeholder struct{ name, value string }

// FlowVars are the ${VAR}s of a flow file's text that are set, longest
// value first (so that a value inside another is put back last).
func FlowVars(src []byte) Placeholders {
	var out Placeholders
	seen := map[string]bool{}
	for _, m := range envRef.FindAllSubmatch(src, -1) {
		name := string(m[1])
		if seen[name] {
			continue
		}
		seen[name] = true
		if v, ok := os.LookupEnv(name); ok && len(v) >= minHidden {
			out = append(out, placeholder{name, v})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].value) > len(out[j].value) })
	return out
}

// Hide puts ${VAR} back for every value of p in s.
func (p Placeholders) Hide(s string) string {
	for _, v := range p {
		s = strings.ReplaceAll(s, v.value, "${"+v.name+"}")
	}
	return s
}

// hideAll is ss with Hide applied to each (a new slice).
func (p Placeholders) hideAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p.Hide(s)
	}
	return out
}

// HideJSON puts ${VAR} back for every value of p inside the strings of
// a JSON document (as the value is written in JSON, escaped or not).
func (p Placeholders) HideJSON(raw json.RawMessage) json.RawMessage {
	if len(p) == 0 || len(raw) == 0 {
		return raw
	}
	out := []byte(raw)
	for _, v := range p {
		for _, form := range jsonForms(v.value) {
			out = bytes.ReplaceAll(out, form, []byte("${"+v.name+"}"))
		}
	}
	return out
}

// jsonForms are value as it stands inside a JSON string: with and
// without HTML escaping.
func jsonForms(value string) [][]byte {
	var forms [][]byte
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(value) != nil {
			continue
		}
		f := bytes.TrimSuffix(bytes.TrimSpace(b.Bytes()), []byte(`"`))
		f = bytes.TrimPrefix(f, []byte(`"`))
		if len(forms) == 0 || !bytes.Equal(forms[0], f) {
			forms = append(forms, f)
		}
	}
	return forms
}

// stepAsWritten is step i (0-based) of a flow file's text as written,
// its ${VAR}s not expanded; false when the text has no such step.
func stepAsWritten(src []byte, i int) (Step, bool) {
	var doc struct {
		Steps []any `yaml:"steps"`
	}
	if src == nil || yaml.Unmarshal(src, &doc) != nil || i < 0 || i >= len(doc.Steps) {
		return Step{}, false
	}
	b, err := json.Marshal(doc.Steps[i])
	if err != nil {
		return Step{}, false
	}
	var st Step
	if json.Unmarshal(b, &st) != nil {
		return Step{}, false
	}
	return st, true
}
