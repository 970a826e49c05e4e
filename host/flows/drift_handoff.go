package flows

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Files of a hand-off bundle (<dir>/<flow id>/).
const (
	HandoffFile     = "handoff.json"
	RepairFile      = "repair.json"
	handoffFlow     = "flow.yaml"
	handoffScreen   = "screen.json"
	handoffSnapshot = "snapshot.json"
	handoffShot     = "screenshot.png"
)

// Handoff is a failed flow handed to an agent: `mmcp test --handoff DIR`
// writes one bundle per failed flow, mm_flow_run {handoff} opens it.
type Handoff struct {
	Name string `json:"name"`
	// Path is the flow file the run read: the repaired flow is written
	// beside it.
	Path       string `json:"path"`
	FailedStep int    `json:"failedStep,omitempty"`
	Error      string `json:"error"`
	ErrorCode  string `json:"errorCode,omitempty"`
	// The bundle's files (names inside it; "" when not collected).
	Flow       string `json:"flow"`
	Screen     string `json:"screen,omitempty"`
	Snapshot   string `json:"snapshot,omitempty"`
	Screenshot string `json:"screenshot,omitempty"`
	// Hints are the screen's priorKnowledge: what earlier sessions did on
	// it.
	Hints json.RawMessage `json:"hints,omitempty"`

	// Dir is the bundle's folder (OpenHandoff).
	Dir string `json:"-"`
}

// WriteHandoff writes the bundle of a failed flow under dir and returns
// its folder: the flow file's text, the failing step and its error, and
// the screen (mm_describe_screen's answer with its hints), accessibility
// snapshot and screenshot its artifacts hold.
func WriteHandoff(dir string, f *Flow, r Result) (string, error) {
	if f.Path == "" {
		return "", fmt.Errorf("flow %q has no file to hand off", f.Name)
	}
	src, err := os.ReadFile(f.Path)
	if err != nil {
		return "", err
	}
	b, err := filepath.Abs(filepath.Join(dir, f.ID()))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(b, 0o755); err != nil {
		return "", err
	}
	// A new failure: the last run's repair is no longer this bundle's.
	if err := os.Remove(filepath.Join(b, RepairFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	abs, err := filepath.Abs(f.Path)
	if err != nil {
		return "", err
	}
	// The bundle is for an agent: a variable's value stays out of it.
	vars := FlowVars(src)
	h := Handoff{Name: f.Name, Path: abs, FailedStep: r.FailedStep, Error: vars.Hide(r.Error), ErrorCode: r.ErrorCode, Flow: handoffFlow}
	if err := os.WriteFile(filepath.Join(b, handoffFlow), src, 0o644); err != nil {
		return "", err
	}
	if a := r.Artifacts; a != nil {
		h.Snapshot = copyInto(b, handoffSnapshot, a.Snapshot, vars)
		h.Screenshot = copyInto(b, handoffShot, a.Screenshot, nil)
		h.Screen = copyInto(b, handoffScreen, a.Screen, vars)
		if h.Screen != "" {
			var st Stop
			if raw, err := os.ReadFile(filepath.Join(b, h.Screen)); err == nil {
				st.Screen = raw
				st.hints()
				h.Hints = st.Hints
			}
		}
	}
	out, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return "", err
	}
	return b, os.WriteFile(filepath.Join(b, HandoffFile), out, 0o644)
}

// copyInto copies the file at from into dir as name, the values of vars
// (a JSON file's) put back as ${VAR}, and returns name, "" when there is
// none.
func copyInto(dir, name, from string, vars Placeholders) string {
	if from == "" {
		return ""
	}
	b, err := os.ReadFile(from)
	if err == nil {
		b = vars.HideJSON(b)
	}
	if err != nil || os.WriteFile(filepath.Join(dir, name), b, 0o644) != nil {
		return ""
	}
	return name
}

// OpenHandoff reads the bundle in dir: its hand-off, and its flow (Path
// the original file, so that a repair is written beside it; the bundle's
// copy when the original is gone) with the flow's text.
func OpenHandoff(dir string) (*Handoff, *Flow, []byte, error) {
	raw, err := os.ReadFile(filepath.Join(dir, HandoffFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "%s is no hand-off bundle (no %s): give a folder `mmcp test --handoff DIR` wrote, DIR/<flow>", dir, HandoffFile)
		}
		return nil, nil, nil, err
	}
	var h Handoff
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "%s: %v", filepath.Join(dir, HandoffFile), err)
	}
	h.Dir = dir
	copyPath := filepath.Join(dir, handoffFlow)
	src, err := os.ReadFile(copyPath)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := Parse(src)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", copyPath, err)
	}
	f.Path = copyPath
	if _, err := os.Stat(h.Path); err == nil {
		f.Path = h.Path
	}
	return &h, f, src, nil
}

// Handoffs writes a bundle under dir for each failed flow of results (in
// flows' order) and notes it in the result; a bundle that cannot be
// written is an error naming the flow.
func Handoffs(dir string, flows []*Flow, results []Result) error {
	var errs []error
	for i := range results {
		if results[i].Status != StatusFailed {
			continue
		}
		b, err := WriteHandoff(dir, flows[i], results[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("hand-off of %s: %w", flows[i].Name, err))
			continue
		}
		results[i].Handoff = b
	}
	return errors.Join(errs...)
}

// Repair is what became of a handed-off flow's repair: mm_flow_resume
// writes it into the bundle (RepairFile) when the flow it resumed came
// from one, and a report made from the run's summary counts it.
type Repair struct {
	// Verdict: repaired or regression.
	Verdict      string    `json:"verdict"`
	RepairedPath string    `json:"repairedPath,omitempty"`
	Failed       []string  `json:"failed,omitempty"`
	At           time.Time `json:"at"`
}

// writeRepair records a repair's verdict in the bundle dir.
func writeRepair(dir string, r Repair) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, RepairFile), append(b, '\n'), 0o644)
}

// ReadRepair is the repair recorded in the bundle dir, nil when there is
// none (or it cannot be read).
func ReadRepair(dir string) *Repair {
	b, err := os.ReadFile(filepath.Join(dir, RepairFile))
	if err != nil {
		return nil
	}
	var r Repair
	if json.Unmarshal(b, &r) != nil || r.Verdict == "" {
		return nil
	}
	return &r
}
