package flows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/internal/redact"
)

// exportSkips are the tools a recorded session used that a flow leaves
// out: looks (the expectations check the end state instead), the knowledge
// store, and the session's own start and end (the flow's launch and the
// runner's cleanup). A batch's steps are recorded one by one, so the
// batch itself is left out too.
var exportSkips = map[string]bool{
	"get_state": true, "list_testids": true, "accessibility_snapshot": true, "describe_screen": true,
	"screenshot": true, "knowledge_last": true, "knowledge_search": true, "knowledge_sessions": true,
	"knowledge_summarize": true, "launch": true, "cleanup": true, "run_steps": true,
	"flow_run": true, "flow_resume": true, "confirmation": true,
}

// launchKeys are the mm_launch arguments a flow keeps (ports and paths
// belong to the machine that recorded the session).
var launchKeys = []string{"stateMode", "fixturePreset", "fixture", "seedContracts", "slowMo", "flowTags"}

// maxExportTestIDs caps the testids an exported flow expects present.
const maxExportTestIDs = 8

// baseName is a tool's name without its prefix (mm_click: click).
func baseName(tool string) string {
	_, b, ok := strings.Cut(tool, "_")
	if !ok {
		return tool
	}
	return b
}

// Export builds a flow from a recorded session: its successful actions in
// order, each a11yRef replaced by the role and name it was given with, and
// the state seen at the end as the expectations. A confirmation answered
// with mm_confirm, or by clicks on the approve or reject button of the
// wallet's popup (the two clicks of a connect are one), is a confirm step
// (popup.go). Every value the record
// withheld (typed text, a private key, a password: a "[redacted N
// chars]" placeholder, or a string with one inside) becomes a variable to
// set in the environment: typed text ${FLOW_TEXT_<step>}, any other
// ${FLOW_<KEY PATH>_<step>} (args.privateKey of step 3:
// ${FLOW_PRIVATE_KEY_3}), in the launch ${FLOW_LAUNCH_<KEY PATH>}. Vars
// lists them in order.
func Export(name string, meta *knowledge.SessionMeta, recs []knowledge.StepRecord) (*Flow, error) {
	f := &Flow{Name: name, Launch: map[string]any{}}
	if meta != nil {
		f.Launch["stateMode"] = meta.Launch.StateMode
		if meta.Launch.FixturePreset != nil {
			f.Launch["fixturePreset"] = *meta.Launch.FixturePreset
		}
		if f.Name == "" {
			f.Name = meta.Goal
		}
		f.Description = "exported from session " + meta.SessionID
	}
	var last *knowledge.StepRecord
	var p popupAnswers
	for i := range recs {
		rec := &recs[i]
		base := baseName(rec.Tool.Name)
		if base == "launch" && rec.Outcome.OK {
			for _, k := range launchKeys {
				if v, ok := rec.Tool.Input[k]; ok {
					f.Launch[k] = f.withheld(v, "FLOW_LAUNCH", []string{k}, "")
				}
			}
		}
		if base == "cleanup" {
			break
		}
		if rec.Observation.State.CurrentScreen != "" && rec.Observation.State.IsLoaded {
			last = rec
		}
		if exportSkips[base] || !rec.Outcome.OK || strings.HasPrefix(rec.Tool.Name, "chain_") {
			p.saw(rec)
			continue
		}
		answered := p.answer(f, rec, base)
		p.saw(rec)
		if answered {
			continue
		}
		st := Step{Tool: rec.Tool.Name, Args: map[string]any{}}
		n := len(f.Steps) + 1
		for _, k := range slices.Sorted(maps.Keys(rec.Tool.Input)) {
			st.Args[k] = f.withheld(rec.Tool.Input[k], "FLOW", []string{k}, fmt.Sprintf("_%d", n))
		}
		if t := rec.Tool.Target; t != nil && t.A11yRef != "" {
			if t.Role == "" {
				return nil, fmt.Errorf("step %d (%s at %s) used a11yRef %s, and its record keeps no role and name to replace it (recorded by an older mmcp)", n, rec.Tool.Name, rec.Timestamp, t.A11yRef)
			}
			delete(st.Args, "a11yRef")
			st.Target = &Target{Role: t.Role, Name: t.Name, RecordedRef: t.A11yRef}
		}
		if rec.Tool.TextRedacted {
			st.Args["text"] = f.variable(fmt.Sprintf("FLOW_TEXT_%d", n))
		}
		f.Steps = append(f.Steps, st)
	}
	if len(f.Steps) == 0 {
		return nil, fmt.Errorf("the session has no successful action to replay (%d records)", len(recs))
	}
	if last != nil {
		f.Expect = endState(last.Observation)
	}
	if f.Name == "" {
		f.Name = "exported flow"
	}
	return f, nil
}

// withheld returns v with every withheld string (one a placeholder is in:
// the value sent is not known) replaced by a variable named prefix, the
// key path in upper snake case, then suffix.
func (f *Flow) withheld(v any, prefix string, path []string, suffix string) any {
	switch x := v.(type) {
	case string:
		if redact.HasPlaceholder(x) {
			return f.variable(prefix + "_" + envName(path) + suffix)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) { // Vars in a stable order
			out[k] = f.withheld(x[k], prefix, append(path[:len(path):len(path)], k), suffix)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = f.withheld(e, prefix, append(path[:len(path):len(path)], strconv.Itoa(i)), suffix)
		}
		return out
	}
	return v
}

// variable is ${name}, noted in Vars once.
func (f *Flow) variable(name string) string {
	if !slices.Contains(f.Vars, name) {
		f.Vars = append(f.Vars, name)
	}
	return "${" + name + "}"
}

// envName is a key path as an environment variable's part: its words
// (camelCase split) upper case, joined by "_" (privateKey: PRIVATE_KEY).
func envName(path []string) string {
	var words []string
	for _, p := range path {
		for _, w := range redact.Words(p) {
			words = append(words, strings.ToUpper(w))
		}
	}
	return strings.Join(words, "_")
}

// endState turns the last observation into expectations: the wallet state
// and the testids that were visible.
func endState(o observation.Observation) *Expect {
	st := o.State
	s := &StateExpect{Screen: st.CurrentScreen, Unlocked: &st.IsUnlocked}
	if st.AccountAddress != nil {
		s.Account = *st.AccountAddress
	}
	if st.ChainID != nil {
		s.ChainID = st.ChainID
	}
	e := &Expect{State: s}
	for _, it := range o.TestIDs {
		if it.Visible && len(e.Present) < maxExportTestIDs {
			e.Present = append(e.Present, Element{TestID: it.TestID})
		}
	}
	return e
}

// YAML renders the flow as a flow file, keys in the schema's order.
func (f *Flow) YAML() ([]byte, error) {
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Style&yaml.DoubleQuotedStyle != 0 {
		n.Style &^= yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}
