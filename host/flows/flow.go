package flows

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/mmcp-dev/mmcp/sdk"
)

// SchemaJSON is the flow file's JSON Schema (the contract of the format).
//
//go:embed flow.schema.json
var SchemaJSON []byte

var schema = sync.OnceValues(func() (*sdk.Schema, error) { return sdk.CompileSchema("flow", SchemaJSON) })

// Flow is one flow file.
type Flow struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Tags        []string       `json:"tags,omitempty"`
	TimeoutMs   int            `json:"timeoutMs,omitempty"`
	Launch      map[string]any `json:"launch,omitempty"`
	Steps       []Step         `json:"steps"`
	Expect      *Expect        `json:"expect,omitempty"`

	// Path is the file the flow was read from ("" when built in memory).
	Path string `json:"-"`
	// Vars are the environment variables an exported flow needs: the
	// values its session's record withheld (Export).
	Vars []string `json:"-"`
}

// Step is one step: a tool and its arguments, as in mm_run_steps, or a
// confirm (the pending confirmation answered as mm_confirm answers it).
type Step struct {
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	// Target names the element by role and accessible name: the runner
	// passes the a11yRef it has in a fresh snapshot.
	Target *Target `json:"target,omitempty"`
	// Confirm answers the wallet's pending confirmation (instead of Tool).
	Confirm *ConfirmStep `json:"confirm,omitempty"`
}

// ConfirmStep is a confirm step: mm_confirm's arguments.
type ConfirmStep struct {
	// Action is approve or reject.
	Action string `json:"action"`
	// Expect is what the confirmation must be (mm_confirm's expect): a
	// field that differs fails the step and nothing is approved.
	Expect    map[string]any `json:"expect,omitempty"`
	TimeoutMs int            `json:"timeoutMs,omitempty"`
}

// ToolName is the tool the step calls (mm_confirm for a confirm).
func (s Step) ToolName() string {
	if s.Confirm != nil {
		return ToolConfirm
	}
	return s.Tool
}

// call is the step's tool call: its tool and arguments.
func (s Step) call() (string, map[string]any) {
	args := map[string]any{}
	if c := s.Confirm; c != nil {
		args["action"] = c.Action
		if c.Expect != nil {
			args["expect"] = c.Expect
		}
		if c.TimeoutMs > 0 {
			args["timeoutMs"] = c.TimeoutMs
		}
		return ToolConfirm, args
	}
	for k, v := range s.Args {
		args[k] = v
	}
	return s.Tool, args
}

// Target is an element by role and accessible name.
type Target struct {
	Role string `json:"role"`
	Name string `json:"name"`
	// RecordedRef is the a11yRef the recorded step used (export).
	RecordedRef string `json:"recordedRef,omitempty"`
}

// Load reads, checks and expands the flow file at path.
func Load(path string) (*Flow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	f.checkpointBeside()
	return f, nil
}

// checkpointBeside makes a relative launch.fromCheckpoint that names a
// file beside the flow file (where it is committed) that file's path.
func (f *Flow) checkpointBeside() {
	cp, _ := f.Launch["fromCheckpoint"].(string)
	if cp == "" || filepath.IsAbs(cp) {
		return
	}
	if p := filepath.Join(filepath.Dir(f.Path), cp); isFile(p) {
		if abs, err := filepath.Abs(p); err == nil {
			f.Launch["fromCheckpoint"] = abs
		}
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Parse checks a flow document (YAML or JSON) against the schema, refuses
// a11yRef targets, expands ${VAR} from the environment and decodes it.
func Parse(b []byte) (*Flow, error) {
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	if err := refuseRefs(doc); err != nil {
		return nil, err
	}
	doc, err := expandEnv(doc)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("flow is not JSON-like (YAML anchors, non-string keys?): %w", err)
	}
	s, err := schema()
	if err != nil {
		return nil, err
	}
	if verr := s.Validate("flow", raw); verr != nil {
		return nil, verr
	}
	var f Flow
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// refuseRefs fails for a step whose args name an a11yRef: a ref is valid
// for one snapshot of one session only.
func refuseRefs(doc any) error {
	m, _ := doc.(map[string]any)
	steps, _ := m["steps"].([]any)
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		args, _ := sm["args"].(map[string]any)
		if ref, ok := args["a11yRef"]; ok {
			return sdk.Errorf(sdk.CodeInvalidInput, "step %d (%v): a11yRef %v is valid for one snapshot of one session only and cannot stand in a flow file; name the element by testId or selector in args, or by role and name in the step's target (target: {role: button, name: \"Confirm\"})", i+1, sm["tool"], ref).
				WithDetails(map[string]any{"field": fmt.Sprintf("steps.%d.args.a11yRef", i)})
		}
	}
	return nil
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv replaces ${VAR} in every string of doc; an unset VAR is an
// error naming it.
func expandEnv(doc any) (any, error) {
	switch v := doc.(type) {
	case string:
		var missing string
		out := envRef.ReplaceAllStringFunc(v, func(s string) string {
			name := envRef.FindStringSubmatch(s)[1]
			val, ok := os.LookupEnv(name)
			if !ok && missing == "" {
				missing = name
			}
			return val
		})
		if missing != "" {
			return nil, sdk.Errorf(sdk.CodeInvalidInput, "environment variable %s is not set (the flow uses ${%s})", missing, missing)
		}
		return out, nil
	case map[string]any:
		for k, e := range v {
			x, err := expandEnv(e)
			if err != nil {
				return nil, err
			}
			v[k] = x
		}
	case []any:
		for i, e := range v {
			x, err := expandEnv(e)
			if err != nil {
				return nil, err
			}
			v[i] = x
		}
	}
	return doc, nil
}
