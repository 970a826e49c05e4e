package knowledge

import (
	"strings"

	"github.com/mmcp-dev/mmcp/internal/redact"
)

// Step labels: what a step was for (discovery, navigation, ...), kept in
// the record's optional labels array for searches.
const (
	LabelDiscovery     = "discovery"
	LabelNavigation    = "navigation"
	LabelInteraction   = "interaction"
	LabelConfirmation  = "confirmation"
	LabelErrorRecovery = "error-recovery"
)

// screenLabel prefixes the label that keeps a screen name the StepRecord v1
// schema has no value for ("screen:connect"); the index reads it back as
// the step's screen.
const screenLabel = "screen:"

// Labels that keep what the StepRecord v1 schema has no field for (its
// build, tool.target and artifacts blocks are closed).
const (
	// buildLabel prefixes the build id a session's steps run on from this
	// step on ("build:<id>"): the recorder sets it where the id changes.
	buildLabel = "build:"
	// targetRoleLabel and targetNameLabel keep the role and accessible
	// name an a11yRef target was given with.
	targetRoleLabel = "target-role:"
	targetNameLabel = "target-name:"
)

// extensionLabels moves rec's build id and target role and name into its
// labels, so the record validates against the spec's schema.
func extensionLabels(rec *StepRecord) {
	if b := rec.Build; b != nil && b.BuildID != "" {
		rec.Labels = append(rec.Labels, buildLabel+b.BuildID)
		nb := *b
		nb.BuildID = ""
		rec.Build = &nb
	}
	if t := rec.Tool.Target; t != nil && t.A11yRef != "" && t.Role != "" {
		rec.Labels = append(rec.Labels, targetRoleLabel+t.Role, targetNameLabel+redact.Mask(t.Name))
	}
}

// restoreFromLabels is extensionLabels read back: the target's role and
// name from rec's labels, and the build id of the step: its own
// "build:<id>" label, else build, the id of the steps before it (a
// label marks where the session's build changed). It answers the step's
// build id.
func restoreFromLabels(rec *StepRecord, build string) string {
	for _, l := range rec.Labels {
		switch {
		case strings.HasPrefix(l, buildLabel):
			build = l[len(buildLabel):]
		case strings.HasPrefix(l, targetRoleLabel) && rec.Tool.Target != nil:
			rec.Tool.Target.Role = l[len(targetRoleLabel):]
		case strings.HasPrefix(l, targetNameLabel) && rec.Tool.Target != nil:
			rec.Tool.Target.Name = l[len(targetNameLabel):]
		}
	}
	if build != "" && rec.Build != nil {
		rec.Build.BuildID = build
	}
	return build
}

// Labels derives a step's labels from its tool's class (the Label of the
// tool's definition: discovery, navigation, interaction or ""), target and
// outcome: the class, "confirmation" for an interaction whose target
// mentions confirm, approve or submit, and "error-recovery" for a failed
// step.
func Labels(class string, target *Target, ok bool) []string {
	var out []string
	if class != "" {
		out = append(out, class)
	}
	if class == LabelInteraction && target != nil {
		t := strings.ToLower(target.TestID + " " + target.Selector + " " + target.A11yRef)
		if strings.Contains(t, "confirm") || strings.Contains(t, "approve") || strings.Contains(t, "submit") {
			out = append(out, LabelConfirmation)
		}
	}
	if !ok {
		out = append(out, LabelErrorRecovery)
	}
	return out
}

// classOf is the tool class among a record's labels, or "".
func classOf(labels []string) string {
	for _, l := range labels {
		switch l {
		case LabelDiscovery, LabelNavigation, LabelInteraction:
			return l
		}
	}
	return ""
}
