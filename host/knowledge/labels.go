package knowledge

import "strings"

// Step labels of spec 004 section 4.2.
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
