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

// toolClass maps unprefixed tool names to their label.
var toolClass = map[string]string{
	"describe_screen":        LabelDiscovery,
	"list_testids":           LabelDiscovery,
	"accessibility_snapshot": LabelDiscovery,
	"get_state":              LabelDiscovery,
	"navigate":               LabelNavigation,
	"wait_for_notification":  LabelNavigation,
	"switch_to_tab":          LabelNavigation,
	"close_tab":              LabelNavigation,
	"click":                  LabelInteraction,
	"type":                   LabelInteraction,
	"wait_for":               LabelInteraction,
}

// Labels derives a step's labels from its tool name, target and outcome:
// the tool's class, "confirmation" for an interaction whose target mentions
// confirm, approve or submit, and "error-recovery" for a failed step.
func Labels(tool string, target *Target, ok bool) []string {
	var out []string
	class := toolClass[actionName(tool)]
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
